/// What a bounded patch did to a document, kept as each change is made: the document's
/// compact size, the checks against its `DocumentLimits`, and the operations a subscriber
/// applies to get the same text.
///
/// Every figure follows what an operation changes, never the size of what it touches: the
/// size moves by the size of the values added and removed, the depth is checked on the
/// values added only (the rest of the document is within the limit already), and the
/// count of the one container that grows. Values of the document itself (removed,
/// replaced, copied, moved deeper) are measured once per patch (`memo`), however often
/// they are copied, and a patch may measure at most twice `maxBytes` of them in all (a
/// patch that only rearranges the document measures at most its size once, plus what it
/// adds): past that it fails with `tooLarge` rather than walk the same bytes again.
struct EditLedger {
    /// Where an added value comes from.
    enum Source {
        /// The patch itself (`add`, `replace`): checked in full.
        case patch
        /// The document (`copy`): within the limits already, but its size counts.
        case document
        /// The location it was just removed from (`move`): its size is unchanged.
        case moved(from: JSONPointer)
    }

    let limits: DocumentLimits
    /// The document's compact size after the changes so far.
    private(set) var byteCount: Int
    /// The changes so far as a subscriber applies them: `-` resolved to an index, `test`
    /// and changes that keep the text left out, a `copy` as the `add` of its value.
    private(set) var operations: [PatchOperation] = []
    /// Whether every recorded operation inserts into an array: such a sequence always
    /// changes the text, however many there are.
    private var onlyInsertions = true
    private var hasMove = false
    /// Bytes of the document's own values measured so far (outside the memo).
    private var measuredBytes = 0
    /// Measures of large values taken from the document, by storage, with the value (kept
    /// alive so that its storage is not reused).
    private var memo: [UInt: (value: JSONValue, measure: ValueMeasure)] = [:]

    init(limits: DocumentLimits, byteCount: Int) {
        self.limits = limits
        self.byteCount = byteCount
    }

    /// The recorded operations when they stand for the whole change: one operation, or
    /// insertions only. Nil when the publisher must compare the texts instead (a `move`
    /// that may land where it was, or operations that may undo each other).
    var patch: [PatchOperation]? {
        hasMove || (operations.count > 1 && !onlyInsertions) ? nil : operations
    }

    // MARK: Changes

    mutating func replaceRoot(_ old: JSONValue, with new: JSONValue, source: Source) throws(JSONPatchError) {
        let added = try measure(new, at: .root, source: source)
        if case .moved(let from) = source {
            // The size counted so far still holds the moved value, which is the whole now.
            byteCount = try measureFromDocument(new).size
            record(.move(from: from, path: .root), insertion: false)
            return
        }
        if old.hasSameText(as: new) { return }
        byteCount = added.size
        record(.replace(path: .root, value: new), insertion: false)
    }

    mutating func replaceMember(_ old: JSONValue, with new: JSONValue, at pointer: JSONPointer, source: Source) throws(JSONPatchError) {
        let added = try measure(new, at: pointer, source: source)
        if case .moved(let from) = source {
            // The moved value left `from`; the member it replaces goes.
            byteCount -= try measureFromDocument(old).size
            record(.move(from: from, path: pointer), insertion: false)
            return
        }
        if old.hasSameText(as: new) { return }
        byteCount += try added.size - measureFromDocument(old).size
        // A member named `-` is replaced by an `add` (see `PatchDiffer.appendReplace`).
        record(pointer.tokens.last == "-" ? .add(path: pointer, value: new) : .replace(path: pointer, value: new), insertion: false)
    }

    mutating func replaceElement(_ old: JSONValue, with new: JSONValue, at pointer: JSONPointer, source: Source) throws(JSONPatchError) {
        let added = try measure(new, at: pointer, source: source)
        if old.hasSameText(as: new) { return }
        byteCount += try added.size - measureFromDocument(old).size
        record(.replace(path: pointer, value: new), insertion: false)
    }

    mutating func addMember(_ key: String, _ value: JSONValue, to count: Int, at pointer: JSONPointer, source: Source) throws(JSONPatchError) {
        try checkCount(count + 1, of: .object, at: pointer.parent ?? .root)
        let added = try measure(value, at: pointer, source: source)
        byteCount += SerializedSize.of(key) + 1 + (count > 0 ? 1 : 0)
        if case .moved(let from) = source {
            record(.move(from: from, path: pointer), insertion: false)
        } else {
            byteCount += added.size
            record(.add(path: pointer, value: value), insertion: false)
        }
    }

    mutating func insertElement(_ value: JSONValue, into count: Int, at pointer: JSONPointer, source: Source) throws(JSONPatchError) {
        try checkCount(count + 1, of: .array, at: pointer.parent ?? .root)
        let added = try measure(value, at: pointer, source: source)
        byteCount += count > 0 ? 1 : 0
        if case .moved(let from) = source {
            record(.move(from: from, path: pointer), insertion: false)
        } else {
            byteCount += added.size
            record(.add(path: pointer, value: value), insertion: true)
        }
    }

    /// A member was removed from an object that had `count` members. `moving`: it is added
    /// elsewhere next, its size with it.
    mutating func removeMember(_ key: String, _ removed: JSONValue, from count: Int, at pointer: JSONPointer, moving: Bool) throws(JSONPatchError) {
        byteCount -= try SerializedSize.of(key) + 1 + (count > 1 ? 1 : 0) + (moving ? 0 : measureFromDocument(removed).size)
        if !moving { record(.remove(path: pointer), insertion: false) }
    }

    /// An element was removed from an array that had `count` elements.
    mutating func removeElement(_ removed: JSONValue, from count: Int, at pointer: JSONPointer, moving: Bool) throws(JSONPatchError) {
        byteCount -= try (count > 1 ? 1 : 0) + (moving ? 0 : measureFromDocument(removed).size)
        if !moving { record(.remove(path: pointer), insertion: false) }
    }

    private mutating func record(_ operation: PatchOperation, insertion: Bool) {
        operations.append(operation)
        if !insertion { onlyInsertions = false }
        if case .move = operation { hasMove = true }
    }

    // MARK: Checks

    /// Measures a value added at `pointer` and checks it against the limits: its depth
    /// below the location, and (for values from the patch) the size of every array and
    /// object it holds.
    private mutating func measure(_ value: JSONValue, at pointer: JSONPointer, source: Source) throws(JSONPatchError) -> ValueMeasure {
        let measure: ValueMeasure
        switch source {
        case .patch:
            measure = ValueMeasure.of(value)
            if measure.widest > limits.maxElements {
                throw JSONPatchError(
                    code: .tooManyElements,
                    reason: "the value for '\(pointer)' holds an array or object of \(measure.widest) elements, more than \(limits.maxElements)"
                )
            }
        case .document:
            measure = try measureFromDocument(value)
        case .moved(let from):
            // Moved no deeper than it was: within the limit already, and its size is not needed.
            if pointer.tokens.count <= from.tokens.count { return ValueMeasure(size: 0, depth: 0, widest: 0) }
            measure = try measureFromDocument(value)
        }
        let depth = pointer.tokens.count + measure.depth
        if depth > limits.maxDepth {
            throw JSONPatchError(
                code: .tooDeep,
                reason: "the document would be nested \(depth) levels deep at '\(pointer)', more than \(limits.maxDepth)"
            )
        }
        return measure
    }

    private func checkCount(_ count: Int, of kind: JSONValue.Kind, at pointer: JSONPointer) throws(JSONPatchError) {
        guard count > limits.maxElements else { return }
        let what = kind == .array ? "the array at '\(pointer)' would hold \(count) elements" : "the object at '\(pointer)' would have \(count) members"
        throw JSONPatchError(code: .tooManyElements, reason: "\(what), more than \(limits.maxElements)")
    }

    /// The measure of a value of the document (removed, replaced, copied or moved), from
    /// the memo when its storage was measured before in this patch.
    private mutating func measureFromDocument(_ value: JSONValue) throws(JSONPatchError) -> ValueMeasure {
        let key = value.largeStorageAddress
        if let key, let known = memo[key] { return known.measure }
        let budget = 2 * limits.maxBytes
        let measure = ValueMeasure.of(value, limit: budget - measuredBytes)
        measuredBytes += measure.size
        guard measuredBytes <= budget else {
            throw JSONPatchError(
                code: .tooLarge,
                reason: "the patch copies, moves and removes more than \(budget) bytes of the document's JSON in all (twice its limit)"
            )
        }
        if let key { memo[key] = (value, measure) }
        return measure
    }
}

/// A value's compact size, its depth (containers on its deepest path), and the count of
/// its widest array or object.
struct ValueMeasure {
    var size: Int
    var depth: Int
    var widest: Int

    /// Measures `value`; once the size passes `limit`, stops (the size is then above it,
    /// and the depth and widest count are those of the part measured).
    static func of(_ value: JSONValue, limit: Int = .max) -> ValueMeasure {
        switch value {
        case .array(let elements):
            var measure = ValueMeasure(size: 2 + max(elements.count - 1, 0), depth: 1, widest: elements.count)
            for element in elements {
                guard measure.size <= limit else { break }
                measure.include(of(element, limit: limit - measure.size))
            }
            return measure
        case .object(let object):
            var measure = ValueMeasure(size: 2 + max(object.count - 1, 0), depth: 1, widest: object.count)
            for (key, member) in object {
                guard measure.size <= limit else { break }
                measure.size += SerializedSize.of(key) + 1
                measure.include(of(member, limit: limit - measure.size))
            }
            return measure
        default:
            return ValueMeasure(size: SerializedSize.of(value), depth: 0, widest: 0)
        }
    }

    private mutating func include(_ child: ValueMeasure) {
        size += child.size
        depth = max(depth, child.depth + 1)
        widest = max(widest, child.widest)
    }
}

extension JSONValue {
    /// The address of this container's storage when it holds enough to be worth
    /// remembering a measure of (`EditLedger`'s memo); nil for scalars and small containers.
    var largeStorageAddress: UInt? {
        switch self {
        case .array(let elements) where elements.count >= 16:
            elements.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        case .object(let object) where object.count >= 16:
            object.storageAddress
        default:
            nil
        }
    }
}
