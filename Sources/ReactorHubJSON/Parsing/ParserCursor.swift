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
    /// What to note about the top-level object's members, when asked (nil otherwise:
    /// nothing to set up or destroy for a plain parse).
    var topLevel: TopLevelWatch?

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

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        var entries: [JSONObject.Entry] = []
        let rejecting = options.contains(.rejectDuplicateKeys)
        var keys = DuplicateKeyGuard(rejecting: rejecting)
        try walkObject { cursor, key, keyStart throws(JSONParseError) in
            guard !rejecting || keys.admit(key, to: entries[...]) else {
                throw cursor.failure(.duplicateKey, DuplicateKeyGuard.message(for: key), at: keyStart)
            }
            guard cursor.depth == 1, cursor.topLevel != nil else {
                let entry = JSONObject.Entry(key: key, value: try cursor.parseValue())
                if entries.isEmpty, cursor.anotherFollows() { entries.reserveCapacity(4) }
                return entries.append(entry)
            }
            cursor.skipWhitespace()
            let valueStart = cursor.position
            if key == cursor.topLevel?.unparsed {
                try cursor.skipValue()
            } else {
                let entry = JSONObject.Entry(key: key, value: try cursor.parseValue())
                if entries.isEmpty { entries.reserveCapacity(4) }
                entries.append(entry)
            }
            cursor.topLevel?.noteRange(valueStart..<cursor.position, of: key)
        }
        return .object(entries.isEmpty ? JSONObject() : JSONObject(entries: entries))
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        var array: [JSONValue] = []
        try walkArray { cursor throws(JSONParseError) in
            let element = try cursor.parseValue()
            if array.isEmpty, cursor.anotherFollows() { array.reserveCapacity(4) }
            array.append(element)
        }
        return .array(array)
    }

    /// Whether a comma follows the value just read: its container holds another, so the
    /// first is stored with room for a few (one allocation where growing from one would
    /// take three; a container of one stays exactly one).
    @inline(__always)
    private mutating func anotherFollows() -> Bool {
        skipWhitespace()
        return position < bytes.count && bytes[position] == UInt8(ascii: ",")
    }

    /// Walks the members of the object at the current position, with every error of the
    /// grammar; `member` reads each value (the cursor just after the colon) and gets the
    /// key and where it was written. With `makingKeys` false the keys are checked, not made
    /// (`member` gets an empty one).
    @inline(__always)
    mutating func walkObject(
        makingKeys: Bool = true,
        _ member: (inout ParserCursor, _ key: String, _ keyStart: Int) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        try enterContainer()
        defer { depth -= 1 }
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        var first = true
        while true {
            skipWhitespace()
            guard position < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input, expected a string key")
            }
            guard bytes[position] == UInt8(ascii: "\"") else {
                if bytes[position] == UInt8(ascii: "}"), !first {
                    throw failure(.trailingComma, "trailing comma before '}'", at: lastComma())
                }
                throw failure(.unexpectedCharacter, "unexpected \(describeByte(at: position)), expected a string key")
            }
            let keyStart = position
            let key: String
            if makingKeys {
                key = try parseString()
            } else {
                try skipString()
                key = ""
            }
            skipWhitespace()
            guard position < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input, expected ':' after the key")
            }
            guard bytes[position] == UInt8(ascii: ":") else {
                throw failure(.unexpectedCharacter, "unexpected \(describeByte(at: position)), expected ':' after the key")
            }
            position += 1
            try member(&self, key, keyStart)
            first = false
            skipWhitespace()
            guard position < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input, expected ',' or '}'")
            }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                return
            default:
                throw failure(.unexpectedCharacter, "unexpected \(describeByte(at: position)), expected ',' or '}'")
            }
        }
    }

    /// Walks the elements of the array at the current position, with every error of the
    /// grammar; `element` reads each one.
    @inline(__always)
    mutating func walkArray(_ element: (inout ParserCursor) throws(JSONParseError) -> Void) throws(JSONParseError) {
        try enterContainer()
        defer { depth -= 1 }
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        var first = true
        while true {
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]"), !first {
                throw failure(.trailingComma, "trailing comma before ']'", at: lastComma())
            }
            try element(&self)
            first = false
            skipWhitespace()
            guard position < bytes.count else {
                throw failure(.unexpectedEndOfInput, "unexpected end of input, expected ',' or ']'")
            }
            switch bytes[position] {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                return
            default:
                throw failure(.unexpectedCharacter, "unexpected \(describeByte(at: position)), expected ',' or ']'")
            }
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        guard depth < maximumDepth else {
            throw failure(.nestingTooDeep, "arrays and objects nested deeper than \(maximumDepth) levels")
        }
        depth += 1
        position += 1
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

/// What a parse notes about the top-level object's members: where each was written (all,
/// or the ones named), and one member to check without building.
struct TopLevelWatch {
    /// Every member's range, when asked for (`JSONParser.parseWithMemberRanges`).
    var all: [String: Range<Int>]?
    /// The members whose ranges are wanted, and where they were found, in the same order.
    let wanted: [String]
    private(set) var found: [Range<Int>?]
    /// A member checked but not built, and left out of the object.
    let unparsed: String?

    init(all: Bool = false, wanted: [String] = [], unparsed: String? = nil) {
        self.all = all ? [:] : nil
        self.wanted = wanted
        self.found = Array(repeating: nil, count: wanted.count)
        self.unparsed = unparsed
    }

    mutating func noteRange(_ range: Range<Int>, of key: String) {
        all?[key] = range
        if let index = wanted.firstIndex(of: key) {
            found[index] = range
        }
    }
}
