import Testing
import ReactorHubJSON

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(parsing: #" {"n":null,"t":true,"f":false,"i":-12,"d":2.5,"s":"x","a":[1,[]],"o":{"k":{}}} "#)
        #expect(value == ["n": .null, "t": true, "f": false, "i": -12, "d": 2.5, "s": "x", "a": [1, []], "o": ["k": [:]]])
    }

    @Test func keepsObjectMembersInTextOrder() throws {
        let value = try JSONValue(parsing: #"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
    }

    @Test func integersStayIntegersAndFractionsStayDoubles() throws {
        #expect(try JSONValue(parsing: "1") == .int(1))
        #expect(try JSONValue(parsing: "1").isIdenticalKind(.int(1)))
        #expect(try JSONValue(parsing: "1.0").isIdenticalKind(.double(1.0)))
        #expect(try JSONValue(parsing: "1e2").isIdenticalKind(.double(100)))
        #expect(try JSONValue(parsing: "-0").isIdenticalKind(.int(0)))
        #expect(try JSONValue(parsing: "-0.0").isIdenticalKind(.double(-0.0)))
        #expect(try JSONValue(parsing: "1.5").isIdenticalKind(.double(1.5)))
    }

    @Test func integersAtTheLimitsOfIntStayExact() throws {
        #expect(try JSONValue(parsing: "9223372036854775807").isIdenticalKind(.int(Int.max)))
        #expect(try JSONValue(parsing: "-9223372036854775808").isIdenticalKind(.int(Int.min)))
    }

    @Test func integersBeyondIntBecomeDoubles() throws {
        #expect(try JSONValue(parsing: "9223372036854775808").isIdenticalKind(.double(9_223_372_036_854_775_808)))
        #expect(try JSONValue(parsing: "-9223372036854775809").isIdenticalKind(.double(-9_223_372_036_854_775_808)))
        #expect(try JSONValue(parsing: "123456789012345678901234567890").isIdenticalKind(.double(1.2345678901234568e29)))
    }

    @Test(arguments: [
        ("0.1", 0.1), ("3.5", 3.5), ("-2.25e-3", -0.00225), ("1E+2", 100), ("6.02214076e23", 6.02214076e23),
        ("2.2250738585072014e-308", 2.2250738585072014e-308), ("4.9e-324", .leastNonzeroMagnitude),
        ("1.7976931348623157e308", 1.7976931348623157e308), ("0.30000000000000004", 0.30000000000000004),
        ("123456789.123456789", 123456789.123456789), ("1e-400", 0), ("0.000001", 0.000001),
        ("9007199254740993", 9_007_199_254_740_992), ("1.00000000000000011102230246251565404236316680908203125", 1),
        ("1.000000000000000111022302462515654042363166809082031251", 1.0000000000000002),
    ])
    func parsesDoublesWithCorrectRounding(text: String, expected: Double) throws {
        let value = try JSONValue(parsing: text)
        #expect(value.doubleValue == expected, "\(text)")
    }

    @Test func decodesEveryEscape() throws {
        let value = try JSONValue(parsing: #""\"\\\/\b\f\n\r\t\u0041\u00e9\uD83C\uDF89\u0000""#)
        #expect(value == .string("\"\\/\u{08}\u{0C}\n\r\tAé🎉\u{0}"))
    }

    @Test func keepsRawNonASCIITextIntact() throws {
        let value = try JSONValue(parsing: #"{"인사":"안녕하세요 🎉","x":"\u2028"}"#)
        #expect(value["인사"] == "안녕하세요 🎉")
        #expect(value["x"] == "\u{2028}")
    }

    @Test func duplicateKeysKeepTheLastValueAtTheFirstPosition() throws {
        let value = try JSONValue(parsing: #"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value["a"] == 3)
    }

    @Test func acceptsAllFourWhitespaceCharactersAroundTokens() throws {
        let value = try JSONValue(parsing: " \t\r\n[ 1 ,\n\t2 ] \r\n")
        #expect(value == [1, 2])
    }

    @Test func parsesFromBytesSlicesAndRawBuffers() throws {
        let bytes = Array(#"xx{"a":[1]}yy"#.utf8)
        let slice = bytes[2..<11]
        #expect(try JSONParser().parse(slice) == ["a": [1]])
        #expect(try JSONParser().parse(Array(slice)) == ["a": [1]])
        let fromRaw = try Array(slice).withUnsafeBytes { raw in try JSONParser().parse(raw) }
        #expect(fromRaw == ["a": [1]])
    }

    @Test func acceptsNestingUpToTheLimit() throws {
        let depth = JSONParser.defaultMaximumDepth
        let text = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        var value = try JSONValue(parsing: text)
        var levels = 0
        while case .array(let inner) = value {
            levels += 1
            value = inner.first ?? .null
        }
        #expect(levels == depth)
    }

    @Test func aLowerLimitIsHonoured() throws {
        let parser = JSONParser(maximumDepth: 2)
        #expect(try parser.parse("[[1]]") == [[1]])
        #expect(throws: JSONParseError.self) { try parser.parse(#"[{"a":[]}]"#) }
    }
}

extension JSONValue {
    /// Equal and of the same case: tells `.int(1)` from `.double(1.0)`, which `==` does not.
    func isIdenticalKind(_ other: JSONValue) -> Bool {
        switch (self, other) {
        case (.int(let left), .int(let right)): left == right
        case (.double(let left), .double(let right)): left == right && left.sign == right.sign
        case (.int, _), (.double, _), (_, .int), (_, .double): false
        default: self == other
        }
    }
}
