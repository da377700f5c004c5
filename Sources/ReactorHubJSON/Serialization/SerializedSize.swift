/// Byte counts of compact JSON text, computed without writing it.
///
/// The differ uses them to decide whether a set of operations is larger than a plain
/// `replace`; the `limit` lets it stop counting a large value as soon as the answer is known.
enum SerializedSize {
    /// The size of `value` as `JSONWriter` writes it, or some number above `limit` once
    /// the size exceeds `limit`.
    static func of(_ value: JSONValue, limit: Int = .max) -> Int {
        var total = 0
        accumulate(value, into: &total, limit: limit)
        return total
    }

    private static func accumulate(_ value: JSONValue, into total: inout Int, limit: Int) {
        switch value {
        case .null: total += 4
        case .bool(let flag): total += flag ? 4 : 5
        case .int(let number): total += of(number)
        case .double(let number): total += of(number)
        case .string(let text): total += of(text)
        case .array(let elements):
            total += 2 + max(elements.count - 1, 0)
            for element in elements {
                guard total <= limit else { return }
                accumulate(element, into: &total, limit: limit)
            }
        case .object(let object):
            total += 2 + max(object.count - 1, 0)
            for (key, member) in object {
                guard total <= limit else { return }
                total += of(key) + 1
                accumulate(member, into: &total, limit: limit)
            }
        }
    }

    /// The size of an integer in decimal.
    static func of(_ number: Int) -> Int {
        var digits = number < 0 ? 2 : 1
        var remaining = number.magnitude
        while remaining >= 10 {
            remaining /= 10
            digits += 1
        }
        return digits
    }

    /// The size of a double as `JSONWriter.writeDouble` writes it.
    static func of(_ number: Double) -> Int {
        guard number.isFinite else { return 4 }
        if number.magnitude < 9_007_199_254_740_992, number == number.rounded(.towardZero) {
            return (number.sign == .minus ? 1 : 0) + of(Int(number.magnitude)) + 2
        }
        return number.description.utf8.count
    }

    /// The size of a string with its quotes and escapes.
    static func of(_ text: String) -> Int {
        var total = 2
        for byte in text.utf8 {
            total += escapedLength(byte)
        }
        return total
    }

    /// The size a reference token takes in a pointer inside a JSON string, without its `/`.
    static func ofToken(_ token: String) -> Int {
        var total = 0
        for byte in token.utf8 {
            total += byte == UInt8(ascii: "~") || byte == UInt8(ascii: "/") ? 2 : escapedLength(byte)
        }
        return total
    }

    private static func escapedLength(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x08, 0x09, 0x0A, 0x0C, 0x0D: 2
        case 0..<0x20: 6
        default: 1
        }
    }
}

extension JSONValue {
    /// The size in bytes of this value's compact JSON text, computed without writing it.
    /// Counting stops early once it passes `limit` (the result is then some number above it).
    public func serializedByteCount(limit: Int = .max) -> Int {
        SerializedSize.of(self, limit: limit)
    }
}
