import Testing
import ReactorHubJSON

/// One malformed input and where and how the parser must reject it.
struct Malformed: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let code: JSONParseError.Code
    let offset: Int
    let line: Int
    let column: Int

    init(_ name: String, _ text: String, _ code: JSONParseError.Code, offset: Int, line: Int = 1, column: Int? = nil) {
        self.init(name, Array(text.utf8), code, offset: offset, line: line, column: column ?? offset + 1)
    }

    init(_ name: String, _ bytes: [UInt8], _ code: JSONParseError.Code, offset: Int, line: Int = 1, column: Int) {
        self.name = name
        self.bytes = bytes
        self.code = code
        self.offset = offset
        self.line = line
        self.column = column
    }

    var testDescription: String { name }
}

@Suite struct JSONParserRejectionTests {
    static let cases: [Malformed] = [
        Malformed("empty input", "", .unexpectedEndOfInput, offset: 0),
        Malformed("only whitespace", "  \n", .unexpectedEndOfInput, offset: 3, line: 2, column: 1),
        Malformed("truncated object", #"{"a":1"#, .unexpectedEndOfInput, offset: 6),
        Malformed("truncated array", "[1,2", .unexpectedEndOfInput, offset: 4),
        Malformed("truncated string", #"{"a":"xy"#, .unexpectedEndOfInput, offset: 8),
        Malformed("truncated literal", "tru", .unexpectedEndOfInput, offset: 3),
        Malformed("truncated exponent", "1e", .unexpectedEndOfInput, offset: 2),
        Malformed("trailing comma in array", "[1,2,]", .trailingComma, offset: 4),
        Malformed("trailing comma in object", "{\"a\":1,\n }", .trailingComma, offset: 6),
        Malformed("leading zero", "[01]", .invalidNumber, offset: 1),
        Malformed("negative leading zero", "-012", .invalidNumber, offset: 1),
        Malformed("bare minus", "[-]", .invalidNumber, offset: 2),
        Malformed("fraction without digits", "1.e5", .invalidNumber, offset: 2),
        Malformed("leading plus", "+1", .unexpectedCharacter, offset: 0),
        Malformed("leading dot", ".5", .unexpectedCharacter, offset: 0),
        Malformed("hex number", "0x10", .trailingData, offset: 1),
        Malformed("infinite number", "1e400", .invalidNumber, offset: 0),
        Malformed("NaN literal", "NaN", .unexpectedCharacter, offset: 0),
        Malformed("lone high surrogate", #"["\uD800"]"#, .loneSurrogate, offset: 2),
        Malformed("high surrogate before a letter", #""\uD83Cx""#, .loneSurrogate, offset: 1),
        Malformed("two high surrogates", #""\uD83C\uD83C""#, .loneSurrogate, offset: 1),
        Malformed("lone low surrogate", #""\uDF89""#, .loneSurrogate, offset: 1),
        Malformed("short unicode escape", #""\u12G4""#, .invalidEscape, offset: 1),
        Malformed("unknown escape", #""a\x""#, .invalidEscape, offset: 2),
        Malformed("raw newline in string", "\"a\nb\"", .controlCharacter, offset: 2),
        Malformed("raw tab in string", "\"\t\"", .controlCharacter, offset: 1),
        Malformed("raw NUL in string", "\"\u{0}\"", .controlCharacter, offset: 1),
        Malformed("invalid UTF-8 lead byte", [0x22, 0x61, 0xFF, 0x22], .invalidUTF8, offset: 2, column: 3),
        Malformed("UTF-8 continuation without lead", [0x22, 0x80, 0x22], .invalidUTF8, offset: 1, column: 2),
        Malformed("overlong UTF-8", [0x22, 0xC0, 0xAF, 0x22], .invalidUTF8, offset: 1, column: 2),
        Malformed("UTF-8 encoded surrogate", [0x22, 0xED, 0xA0, 0x80, 0x22], .invalidUTF8, offset: 1, column: 2),
        Malformed("UTF-8 beyond U+10FFFF", [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], .invalidUTF8, offset: 1, column: 2),
        Malformed("truncated UTF-8 sequence", [0x22, 0xE2, 0x82, 0x22], .invalidUTF8, offset: 1, column: 2),
        Malformed("trailing garbage", #"{"a":1} x"#, .trailingData, offset: 8),
        Malformed("two documents", "1 2", .trailingData, offset: 2),
        Malformed("single quotes", "['a']", .unexpectedCharacter, offset: 1),
        Malformed("unquoted key", "{a:1}", .unexpectedCharacter, offset: 1),
        Malformed("missing colon", #"{"a" 1}"#, .unexpectedCharacter, offset: 5),
        Malformed("missing comma", "[1 2]", .unexpectedCharacter, offset: 3),
        Malformed("byte order mark", [0xEF, 0xBB, 0xBF, 0x31], .unexpectedCharacter, offset: 0, column: 1),
        Malformed("misspelt literal", "nul", .unexpectedEndOfInput, offset: 3),
        Malformed("wrong literal", "[trve]", .unexpectedCharacter, offset: 3),
        Malformed("error on a later line", "{\n  \"a\": [1,\n  2,,]\n}", .unexpectedCharacter, offset: 17, line: 3, column: 5),
        Malformed("column counts characters", "[\"한국\", x]", .unexpectedCharacter, offset: 11, column: 8),
        Malformed(
            "nesting deeper than the default limit",
            String(repeating: "[", count: JSONParser.defaultMaximumDepth + 1) + String(repeating: "]", count: JSONParser.defaultMaximumDepth + 1),
            .nestingTooDeep, offset: JSONParser.defaultMaximumDepth
        ),
    ]

    @Test(arguments: cases)
    func rejectsMalformedInputWithCodeAndPosition(_ input: Malformed) {
        do {
            let value = try JSONParser().parse(input.bytes)
            Issue.record("parsed \(value)")
        } catch {
            #expect(error.code == input.code)
            #expect(error.offset == input.offset)
            #expect(error.line == input.line)
            #expect(error.column == input.column)
            #expect(error.description.hasSuffix("at line \(input.line), column \(input.column) (byte \(input.offset))"))
        }
    }

    @Test func messagesSayWhatWasExpected() {
        let cases: [(String, String)] = [
            ("[1 2]", "unexpected '2', expected ',' or ']'"),
            (#"{"a":1,}"#, "trailing comma before '}'"),
            ("[01]", "leading zeros are not allowed in numbers"),
            (#""\uD800""#, "high surrogate \\uD800 is not followed by a low surrogate escape"),
            ("\"a\u{1}\"", "raw control character U+0001 in a string; write it as an escape"),
            ("[", "unexpected end of input, expected a value"),
        ]
        for (text, message) in cases {
            #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
            do {
                _ = try JSONValue(parsing: text)
            } catch {
                #expect(error.message == message, "\(text)")
            }
        }
    }
}
