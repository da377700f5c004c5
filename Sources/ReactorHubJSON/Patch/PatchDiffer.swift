/// Computes an RFC 6902 patch between two documents, depth first.
///
/// It keeps the pointer of the current location as a token stack (with its serialized
/// length, for size decisions) and appends operations as it goes. Each `diff…` returns
/// the serialized size of what it emitted, so every level can compare its operations
/// against one `replace` of its new value, counting each operation once.
struct PatchDiffer {
    /// When two values count as the same.
    let equality: JSONPatch.Equality
    private(set) var operations: [PatchOperation] = []
    private var tokens: [String] = []
    /// Serialized length of `tokens` as a pointer inside a JSON string, without quotes.
    private var pathLength = 0

    // Sizes of the fixed parts of `{"op":"…","path":"…","value":…}` in compact JSON, plus
    // the comma that separates operations in the patch array.
    private static let replaceOverhead = #"{"op":"replace","path":"","value":},"#.utf8.count
    private static let addOverhead = #"{"op":"add","path":"","value":},"#.utf8.count
    private static let removeOverhead = #"{"op":"remove","path":""},"#.utf8.count

    init(equality: JSONPatch.Equality = .json) {
        self.equality = equality
    }

    /// Whether `old` and `new` are the same under `equality` (shared storage first).
    func same(_ old: JSONValue, _ new: JSONValue) -> Bool {
        switch equality {
        case .json: old.isIdentical(to: new) || old == new
        case .text: old.hasSameText(as: new)
        }
    }

    /// Appends the operations that turn `old` into `new` at the current location.
    mutating func diff(_ old: JSONValue, _ new: JSONValue) {
        _ = diffValue(old, new)
    }

    /// Emits the operations for one location and returns their serialized size.
    mutating func diffValue(_ old: JSONValue, _ new: JSONValue) -> Int {
        if case .object(let oldObject) = old, case .object(let newObject) = new {
            if oldObject.isIdentical(to: newObject) { return 0 }
            if equality == .text, !oldObject.keepsOrder(becoming: newObject) {
                return emitReplace(new)
            }
            let start = operations.count
            let size = diffObjects(oldObject, newObject)
            return replaceIfSmaller(new, than: size, since: start)
        }
        if case .array(let oldArray) = old, case .array(let newArray) = new {
            if JSONValue.isIdentical(oldArray, newArray) { return 0 }
            let start = operations.count
            let size = diffArrays(oldArray, newArray)
            return replaceIfSmaller(new, than: size, since: start)
        }
        if same(old, new) { return 0 }
        return emitReplace(new)
    }

    private mutating func diffObjects(_ old: JSONObject, _ new: JSONObject) -> Int {
        var size = 0
        var kept = 0
        for position in 0..<old.count {
            // Members usually keep their positions, and a member two versions share has the
            // same bits in both (the same key and value storage): skipped without a copy.
            if position < new.count, old.sharesMember(at: position, with: new) {
                kept += 1
                continue
            }
            let (key, oldValue) = old[position]
            // Then look at the same position before hashing the key.
            let newValue: JSONValue?
            if position < new.count, JSONObject.sameKey(new[position].key, key) {
                newValue = new[position].value
            } else {
                newValue = new[key]
            }
            if let newValue {
                kept += 1
                if !oldValue.isIdentical(to: newValue) {
                    push(key)
                    size += diffValue(oldValue, newValue)
                    pop()
                }
            } else {
                push(key)
                size += emitRemove()
                pop()
            }
        }
        if kept < new.count {
            for (key, newValue) in new where old.index(forKey: key) == nil {
                push(key)
                size += emitAdd(newValue)
                pop()
            }
        }
        return size
    }

    /// When one `replace` of `new` is smaller than what was emitted since `start`, drops
    /// those operations and emits the `replace` instead; returns the resulting size.
    private mutating func replaceIfSmaller(_ new: JSONValue, than size: Int, since start: Int) -> Int {
        guard size > 0 else { return 0 }
        let fixed = Self.replaceOverhead + pathLength
        guard fixed < size else { return size }
        let valueSize = SerializedSize.of(new, limit: size - fixed)
        guard fixed + valueSize < size else { return size }
        operations.removeSubrange(start...)
        appendReplace(new)
        return fixed + valueSize
    }

    var currentPointer: JSONPointer {
        JSONPointer(tokens: tokens)
    }

    mutating func push(_ token: String) {
        tokens.append(token)
        pathLength += 1 + SerializedSize.ofToken(token)
    }

    mutating func push(index: Int) {
        tokens.append(String(index))
        pathLength += 1 + SerializedSize.of(index)
    }

    mutating func pop() {
        let token = tokens.removeLast()
        pathLength -= 1 + SerializedSize.ofToken(token)
    }

    mutating func emitReplace(_ value: JSONValue) -> Int {
        appendReplace(value)
        return Self.replaceOverhead + pathLength + SerializedSize.of(value)
    }

    /// Appends a `replace` of the current location.
    ///
    /// A member named `-` is replaced with the equivalent `add` (RFC 6902 4.1: adding an
    /// existing member replaces it), because some implementations, Python's `jsonpatch`
    /// among them, refuse any `replace` whose last token is `-`, even in an object. The
    /// differ never uses `-` for arrays, so such a token always names a member.
    private mutating func appendReplace(_ value: JSONValue) {
        if tokens.last == "-" {
            operations.append(.add(path: currentPointer, value: value))
        } else {
            operations.append(.replace(path: currentPointer, value: value))
        }
    }

    mutating func emitAdd(_ value: JSONValue) -> Int {
        operations.append(.add(path: currentPointer, value: value))
        return Self.addOverhead + pathLength + SerializedSize.of(value)
    }

    mutating func emitRemove() -> Int {
        operations.append(.remove(path: currentPointer))
        return Self.removeOverhead + pathLength
    }
}

/// Whether the values at `left` and `right` have the same bits: for a member or a value, the
/// same case and the same storage, or the same scalar, which implies they are identical
/// (`JSONValue.isIdentical(to:)`) and so equal; `false` says nothing (unused payload bytes
/// may differ). Read in place, so that the differ's loops do not copy (retain) each member
/// or element only to find it shared.
@inline(__always)
func sameBits<Stored>(_ left: UnsafePointer<Stored>, _ right: UnsafePointer<Stored>) -> Bool {
    let left = UnsafeRawPointer(left), right = UnsafeRawPointer(right)
    let size = MemoryLayout<Stored>.size
    var offset = 0
    while offset + 8 <= size {
        guard left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else {
            return false
        }
        offset += 8
    }
    while offset < size {
        guard left.load(fromByteOffset: offset, as: UInt8.self) == right.load(fromByteOffset: offset, as: UInt8.self) else { return false }
        offset += 1
    }
    return true
}
