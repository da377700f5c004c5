extension PatchDiffer {
    /// Diffs two arrays: trims the common prefix and suffix, aligns the rest on a bounded
    /// shortest edit script, and diffs the elements that take each other's place in place.
    ///
    /// The common single changes (append, insertion, removal, one changed element) are
    /// settled by the trimming in O(n) equality checks. The middle is aligned with Myers'
    /// O((N+M)·D) algorithm on element hashes, with D bounded so the work stays near-linear
    /// on long arrays; past the bound, elements are paired by position (and the caller
    /// replaces the whole array if that comes out larger).
    mutating func diffArrays(_ old: [JSONValue], _ new: [JSONValue]) -> Int {
        let shorter = min(old.count, new.count)
        // Elements two versions share have the same bits in both: compared in place first.
        let (prefix, suffix) = old.withUnsafeBufferPointer { oldElements in
            new.withUnsafeBufferPointer { newElements in
                var prefix = 0
                while prefix < shorter,
                      sameBits(oldElements.baseAddress! + prefix, newElements.baseAddress! + prefix) || same(old[prefix], new[prefix]) {
                    prefix += 1
                }
                var suffix = 0
                while suffix < shorter - prefix,
                      sameBits(oldElements.baseAddress! + (old.count - 1 - suffix), newElements.baseAddress! + (new.count - 1 - suffix))
                        || same(old[old.count - 1 - suffix], new[new.count - 1 - suffix]) {
                    suffix += 1
                }
                return (prefix, suffix)
            }
        }
        let oldMiddle = old[prefix..<(old.count - suffix)]
        let newMiddle = new[prefix..<(new.count - suffix)]
        if oldMiddle.isEmpty || newMiddle.isEmpty || (oldMiddle.count == 1 && newMiddle.count == 1) {
            return emitGap(oldMiddle, newMiddle, at: prefix)
        }
        guard let matches = alignment(oldMiddle, newMiddle) else {
            return emitGap(oldMiddle, newMiddle, at: prefix)
        }
        var size = 0
        var index = prefix
        var oldPosition = oldMiddle.startIndex
        var newPosition = newMiddle.startIndex
        for (oldMatch, newMatch) in matches + [(oldMiddle.endIndex, newMiddle.endIndex)] {
            size += emitGap(old[oldPosition..<oldMatch], new[newPosition..<newMatch], at: index)
            index += newMatch - newPosition + 1
            oldPosition = oldMatch + 1
            newPosition = newMatch + 1
        }
        return size
    }

    /// Emits the operations turning the elements `old` into `new` at array position
    /// `index` of the current array: pairs diffed in place, then removals or additions.
    private mutating func emitGap(_ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>, at index: Int) -> Int {
        var size = 0
        let paired = min(old.count, new.count)
        for offset in 0..<paired {
            let shared = old.withUnsafeBufferPointer { oldElements in
                new.withUnsafeBufferPointer { sameBits(oldElements.baseAddress! + offset, $0.baseAddress! + offset) }
            }
            if shared { continue }
            let oldValue = old[old.startIndex + offset]
            let newValue = new[new.startIndex + offset]
            if oldValue.isIdentical(to: newValue) { continue }
            push(index: index + offset)
            size += diffValue(oldValue, newValue)
            pop()
        }
        if old.count > paired {
            // Remove from the last to the first, so each index is still the original one.
            for offset in (paired..<old.count).reversed() {
                push(index: index + offset)
                size += emitRemove()
                pop()
            }
        }
        for offset in paired..<new.count {
            push(index: index + offset)
            size += emitAdd(new[new.startIndex + offset])
            pop()
        }
        return size
    }

    /// The pairs of positions (old, new) of a longest common subsequence, in order, or
    /// `nil` when the arrays differ in more places than the work budget allows.
    func alignment(_ old: ArraySlice<JSONValue>, _ new: ArraySlice<JSONValue>) -> [(Int, Int)]? {
        let total = old.count + new.count
        let maximumEdits = min(total, 512, max(64, 4_000_000 / total))
        let oldHashes = old.map(\.hashValue)
        let newHashes = new.map(\.hashValue)
        func equal(_ x: Int, _ y: Int) -> Bool {
            // Values the same under either equality are equal as JSON, so their hashes agree.
            oldHashes[x] == newHashes[y] && same(old[old.startIndex + x], new[new.startIndex + y])
        }
        guard let pairs = MyersAlignment.matches(
            oldCount: old.count, newCount: new.count, maximumEdits: maximumEdits, equal: equal
        ) else { return nil }
        return pairs.map { (old.startIndex + $0.0, new.startIndex + $0.1) }
    }
}
