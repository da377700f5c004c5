extension ParserCursor {
    /// Checks one value as `parseValue()` would, with the same errors at the same offsets,
    /// and builds nothing (but strings with escapes).
    mutating func skipValue() throws(JSONParseError) {
        skipWhitespace()
        guard position < bytes.count else {
            throw failure(.unexpectedEndOfInput, "unexpected end of input, expected a value")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            try walkObject(makingKeys: false) { cursor, _, _ throws(JSONParseError) in try cursor.skipValue() }
        case UInt8(ascii: "["):
            try walkArray { cursor throws(JSONParseError) in try cursor.skipValue() }
        case UInt8(ascii: "\""):
            try skipString()
        default:
            _ = try parseValue()
        }
    }
}

extension ParserCursor {
    /// The members of the object at the current position, each with where its value was
    /// written, in the order written (a repeated key is listed again), for bytes a parser
    /// accepted already (an action inside the message it came in): the values are stepped
    /// over, not checked again. Stops at the end of the bytes, whatever they hold.
    mutating func scanCheckedObjectMembers() -> [(key: String, range: Range<Int>)] {
        var members: [(key: String, range: Range<Int>)] = []
        members.reserveCapacity(8)
        position += 1
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return members }
            guard let key = try? parseString() else { return members }
            skipWhitespace()
            position += 1
            skipWhitespace()
            let start = position
            stepOverCheckedValue()
            members.append((key, start..<min(position, bytes.count)))
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ",") else { return members }
            position += 1
        }
    }

    /// Moves past one value of checked JSON: strings to their closing quote, containers to
    /// their closing bracket, anything else to the next delimiter.
    private mutating func stepOverCheckedValue() {
        var depth = 0
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                    position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
                }
                position += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return }
                depth -= 1
                position += 1
            case UInt8(ascii: ","), 0x20, 0x0A, 0x0D, 0x09:
                if depth == 0 { return }
                position += 1
            default:
                position += 1
            }
            if depth == 0, byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") { return }
        }
    }
}
