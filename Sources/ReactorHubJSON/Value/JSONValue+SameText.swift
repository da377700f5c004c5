extension JSONValue {
    /// Whether both values are written as the same JSON text by `JSONWriter`: JSON
    /// equality, and also an integer apart from a double (`1` is not `1.0`), the sign of
    /// zero, strings compared by their Unicode scalars rather than by canonical
    /// equivalence, and object members in the same order.
    ///
    /// What `JSONPatch.diff(from:to:equality: .text)` uses to decide that nothing changed.
    func hasSameText(as other: JSONValue) -> Bool {
        switch self {
        case .null:
            if case .null = other { return true }
        case .bool(let left):
            if case .bool(let right) = other { return left == right }
        case .int(let left):
            if case .int(let right) = other { return left == right }
        case .double(let left):
            if case .double(let right) = other { return left.bitPattern == right.bitPattern }
        case .string(let left):
            if case .string(let right) = other { return left.utf8.elementsEqual(right.utf8) }
        case .array(let left):
            if case .array(let right) = other {
                return Self.isIdentical(left, right) || (left.count == right.count && zip(left, right).allSatisfy { $0.hasSameText(as: $1) })
            }
        case .object(let left):
            if case .object(let right) = other {
                return left.isIdentical(to: right)
                    || (left.count == right.count
                        && zip(left, right).allSatisfy { JSONObject.sameKey($0.key, $1.key) && $0.value.hasSameText(as: $1.value) })
            }
        }
        return false
    }
}

extension JSONObject {
    /// Whether patching `self` into `new` keeps `new`'s member order: the members both
    /// have come in the same order, and the members only `new` has come after them (where
    /// an `add` puts them).
    func keepsOrder(becoming new: JSONObject) -> Bool {
        // Walks both in step: a member of `self` is either the next of `new` (kept in
        // order), or gone from `new` (removed); anywhere else, the order changed. The
        // common case, the same keys in the same places, needs no lookup at all.
        var next = 0
        for (key, _) in self {
            if next < new.count, JSONObject.sameKey(new[next].key, key) {
                next += 1
            } else if new.index(forKey: key) != nil {
                return false
            }
        }
        return true
    }
}
