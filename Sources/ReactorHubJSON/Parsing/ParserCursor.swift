/// The parser's state over one input: a position in the bytes, the nesting depth, and a
/// scratch buffer reused for strings with escapes.
///
/// Recursive descent over containers; each recursion level is one nesting level, bounded
/// by `maximumDepth`, so the stack use is bounded too.
struct ParserCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    let options: JSONParser.Options
    var position = 0
    var depth = 0
    var scratch: [UInt8] = []
    /// Where each member value of the top-level object was written, when asked for
    /// (`JSONParser.parseWithMemberRanges`); nil otherwise, so that nothing is recorded.
    var topLevelRanges: [String: Range<Int>]?

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, options: JSONParser.Options = []) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
        self.options = options
    }

    /// Parses the single value that must make up the whole input.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count {
            throw failure(.trailingData, "unexpected \(describeByte(at: position)) after the JSON value")
        }
        return value
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else {
            throw failure(.unexpectedEndOfInput, "unexpected end of input, expected a value")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            return try parseObject()
        case UInt8(ascii: "["):
            return try parseArray()
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw failure(.unexpectedCharacter, "unexpected \(describeByte(at: position)), expected a value")
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        guard depth < maximumDepth else {
            throw failure(.nestingTooDeep, "arrays and objects nested deeper than \(maximumDepth) levels")
        }
        depth += 1
        position += 1
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject())
        }
        var entries: [JSONObject.Entry] = []
        var keys = DuplicateKeyGuard(rejecting: options.contains(.rejectDuplicateKeys))
        while true {
            skipWhitespace()
            guard position < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input, expected a string key")
            }
            guard bytes[position] == UInt8(ascii: "\"") else {
                if bytes[position] == UInt8(ascii: "}"), !entries.isEmpty {
                    throw failure(.trailingComma, "trailing comma before '}'", at: lastComma())
                }
                throw failure(.unexpectedCharacter, "unexpected \(describeByte(at: position)), expected a string key")
            }
            let keyStart = position
            let key = try parseString()
            guard keys.admit(key, to: entries) else {
                throw failure(.duplicateKey, DuplicateKeyGuard.message(for: key), at: keyStart)
            }
            skipWhitespace()
            guard position < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input, expected ':' after the key")
            }
            guard bytes[position] == UInt8(ascii: ":") else {
                throw failure(.unexpectedCharacter, "unexpected \(describeByte(at: position)), expected ':' after the key")
            }
            position += 1
            let value: JSONValue
            if depth == 1, topLevelRanges != nil {
                skipWhitespace()
                let valueStart = position
                value = try parseValue()
                topLevelRanges?[key] = valueStart..<position
            } else {
                value = try parseValue()
            }
            entries.append(JSONObject.Entry(key: key, value: value))
            skipWhitespace()
            guard position < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input, expected ',' or '}'")
            }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(JSONObject(entries: entries))
            default:
                throw failure(.unexpectedCharacter, "unexpected \(describeByte(at: position)), expected ',' or '}'")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return .array([])
        }
        var array: [JSONValue] = []
        while true {
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]"), !array.isEmpty {
                throw failure(.trailingComma, "trailing comma before ']'", at: lastComma())
            }
            let element = try parseValue()
            array.append(element)
            skipWhitespace()
            guard position < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input, expected ',' or ']'")
            }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(array)
            default:
                throw failure(.unexpectedCharacter, "unexpected \(describeByte(at: position)), expected ',' or ']'")
            }
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let start = position
        let length = literal.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
        for offset in 0..<length {
            guard start + offset < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input inside '\(literal)'", at: bytes.count)
            }
            guard bytes[start + offset] == expected[offset] else {
                throw failure(
                    .unexpectedCharacter,
                    "unexpected \(describeByte(at: start + offset)), expected '\(literal)'",
                    at: start + offset
                )
            }
        }
        position = start + length
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09:
                position += 1
            default:
                return
            }
        }
    }

    /// The offset of the comma that precedes the current position (for trailing commas).
    private func lastComma() -> Int {
        var offset = position - 1
        while offset > 0, bytes[offset] != UInt8(ascii: ",") {
            offset -= 1
        }
        return offset
    }
}

extension ParserCursor {
    /// An error at `offset` (the current position by default), with line and column.
    func failure(_ code: JSONParseError.Code, _ message: String, at offset: Int? = nil) -> JSONParseError {
        let offset = min(offset ?? position, bytes.count)
        var line = 1
        var column = 1
        for byte in bytes[0..<offset] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return JSONParseError(code: code, message: message, offset: offset, line: line, column: column)
    }

    /// "'x'" for a printable ASCII byte, "byte 0xNN" otherwise, "end of input" past the end.
    func describeByte(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if byte >= 0x21, byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(byte < 0x10 ? "0" : "")\(hex)"
    }
}
