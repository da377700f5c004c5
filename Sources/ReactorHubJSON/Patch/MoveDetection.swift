/// Turns a patch that is exactly "remove one array element, insert the same value
/// elsewhere in the same array" into the single `move` it amounts to.
enum MoveDetection {
    static func collapse(_ operations: [PatchOperation], in old: JSONValue, equality: JSONPatch.Equality = .json) -> [PatchOperation] {
        guard operations.count == 2 else { return operations }
        let differ = PatchDiffer(equality: equality)
        func same(_ moved: JSONValue?, _ value: JSONValue) -> Bool {
            moved.map { differ.same($0, value) } ?? false
        }
        switch (operations[0], operations[1]) {
        case (.remove(let from), .add(let to, let value)):
            // Remove at i, then add at j in the shortened array: exactly RFC 6902's move.
            guard let (parent, removed) = split(from), let (sameParent, _) = split(to), parent == sameParent,
                  case .array? = old[pointer: parent], same(old[pointer: parent.appending(index: removed)], value)
            else { return operations }
            return [.move(from: from, path: to)]
        case (.add(let to, let value), .remove(let from)):
            // Add at j, then remove at k > j in the lengthened array: the element came
            // from k - 1 in the original array.
            guard let (parent, added) = split(to), let (sameParent, removed) = split(from), parent == sameParent,
                  removed > added, case .array? = old[pointer: parent],
                  same(old[pointer: parent.appending(index: removed - 1)], value)
            else { return operations }
            return [.move(from: parent.appending(index: removed - 1), path: to)]
        default:
            return operations
        }
    }

    /// The parent pointer and the element index of a pointer to an array element.
    private static func split(_ pointer: JSONPointer) -> (JSONPointer, Int)? {
        guard let last = pointer.tokens.last, let parent = pointer.parent,
              case .position(let index)? = JSONPointer.arrayIndex(last)
        else { return nil }
        return (parent, index)
    }
}
