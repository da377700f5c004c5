extension JSONValue: Equatable {
    /// JSON equality: object member order does not matter and numbers compare by value,
    /// so `1 == 1.0`; an integer equals a double only when the double is exactly that integer.
    /// Strings and member names compare by Unicode scalars (RFC 6902 `test`), so `"é"` and
    /// `"e\u{301}"` differ, though they are equal `String`s (`CodePoints`).
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        // One switch per side (no tuple of both): the differ calls this for every element
        // of long arrays, and a tuple would copy (retain and release) both values.
        switch lhs {
        case .null:
            if case .null = rhs { return true }
        case .bool(let left):
            if case .bool(let right) = rhs { return left == right }
        case .int(let left):
            if case .int(let right) = rhs { return left == right }
            if case .double(let right) = rhs { return Int(exactly: right) == left }
        case .double(let left):
            if case .double(let right) = rhs { return left == right }
            if case .int(let right) = rhs { return Int(exactly: left) == right }
        case .string(let left):
            if case .string(let right) = rhs { return CodePoints.equal(left, right) }
        case .array(let left):
            if case .array(let right) = rhs { return equalElements(left, right) }
        case .object(let left):
            if case .object(let right) = rhs { return left == right }
        }
        return false
    }

    /// Element-wise equality, with the shared-storage shortcut first.
    static func equalElements(_ left: [JSONValue], _ right: [JSONValue]) -> Bool {
        guard left.count == right.count else { return false }
        return left.withUnsafeBufferPointer { mine in
            right.withUnsafeBufferPointer { theirs in
                if mine.baseAddress == theirs.baseAddress { return true }
                for index in 0..<mine.count where mine[index] != theirs[index] {
                    return false
                }
                return true
            }
        }
    }

    /// Whether both values are the same null, boolean or number, or share one container
    /// storage; O(1). Strings are never identical (they have no public identity).
    ///
    /// Implies equality, and the same text (`hasSameText(as:)`). The differ uses it to skip
    /// subtrees that two versions of a copy-on-write document still share; `false` only
    /// means "compare deeper".
    public func isIdentical(to other: JSONValue) -> Bool {
        switch self {
        case .null:
            if case .null = other { return true }
        case .bool(let left):
            if case .bool(let right) = other { return left == right }
        case .int(let left):
            if case .int(let right) = other { return left == right }
        case .double(let left):
            // Bit for bit, so that 0.0 and -0.0 (equal, but written differently) are not.
            if case .double(let right) = other { return left.bitPattern == right.bitPattern }
        case .array(let left):
            if case .array(let right) = other { return Self.isIdentical(left, right) }
        case .object(let left):
            if case .object(let right) = other { return left.isIdentical(to: right) }
        case .string:
            break
        }
        return false
    }
}

extension JSONValue {
    /// Whether two arrays share one storage; O(1).
    static func isIdentical(_ left: [JSONValue], _ right: [JSONValue]) -> Bool {
        left.count == right.count
            && left.withUnsafeBufferPointer { mine in
                right.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
            }
    }
}

extension JSONValue: Hashable {
    /// Hashes consistently with JSON equality: an integral double hashes as the integer.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .int(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .double(let value):
            if let integer = Int(exactly: value) {
                hasher.combine(2 as UInt8)
                hasher.combine(integer)
            } else {
                hasher.combine(3 as UInt8)
                hasher.combine(value)
            }
        case .string(let value):
            hasher.combine(4 as UInt8)
            CodePoints.hash(value, into: &hasher)
        case .array(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(6 as UInt8)
            hasher.combine(value)
        }
    }
}
