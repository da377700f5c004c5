import Testing
import ReactorHubJSON

/// RFC 8785 (JCS): the canonical form that checksums hash (PROTOCOL.md "Checksums").
@Suite struct CanonicalJSONTests {
    private func canonical(_ value: JSONValue) -> String {
        String(decoding: value.canonicalized(), as: UTF8.self)
    }

    private func number(_ bits: UInt64) -> String {
        var writer = JSONWriter()
        writer.writeECMAScriptNumber(Double(bitPattern: bits))
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// RFC 8785 Appendix B: IEEE 754 bit patterns and what ECMAScript prints for them.
    @Test(arguments: [
        (0x0000_0000_0000_0000, "0"),
        (0x8000_0000_0000_0000, "0"),
        (0x0000_0000_0000_0001, "5e-324"),
        (0x8000_0000_0000_0001, "-5e-324"),
        (0x7FEF_FFFF_FFFF_FFFF, "1.7976931348623157e+308"),
        (0xFFEF_FFFF_FFFF_FFFF, "-1.7976931348623157e+308"),
        (0x4340_0000_0000_0000, "9007199254740992"),
        (0xC340_0000_0000_0000, "-9007199254740992"),
        (0x4430_0000_0000_0000, "295147905179352830000"),
        (0x44B5_2D02_C7E1_4AF5, "9.999999999999997e+22"),
        (0x44B5_2D02_C7E1_4AF6, "1e+23"),
        (0x44B5_2D02_C7E1_4AF7, "1.0000000000000001e+23"),
        (0x444B_1AE4_D6E2_EF4E, "999999999999999700000"),
        (0x444B_1AE4_D6E2_EF4F, "999999999999999900000"),
        (0x444B_1AE4_D6E2_EF50, "1e+21"),
        (0x3EB0_C6F7_A0B5_ED8C, "9.999999999999997e-7"),
        (0x3EB0_C6F7_A0B5_ED8D, "0.000001"),
        (0x41B3_DE43_5555_5553, "333333333.3333332"),
        (0x41B3_DE43_5555_5554, "333333333.33333325"),
        (0x41B3_DE43_5555_5555, "333333333.3333333"),
        (0x41B3_DE43_5555_5556, "333333333.3333334"),
        (0x41B3_DE43_5555_5557, "333333333.33333343"),
        (0xBECB_F647_612F_3696, "-0.0000033333333333333333"),
        (0x4314_3FF3_C1CB_0959, "1424953923781206.2"),
    ] as [(UInt64, String)])
    func numbersAreWrittenAsECMAScriptWritesThem(bits: UInt64, expected: String) {
        #expect(number(bits) == expected)
    }

    @Test(arguments: [
        (1.0, "1"), (-1.5, "-1.5"), (0.1, "0.1"), (100.0, "100"), (1e21, "1e+21"), (1e20, "100000000000000000000"),
        (123e-20, "1.23e-18"), (0.000001, "0.000001"), (0.0000001, "1e-7"), (1.5e300, "1.5e+300"), (4.5, "4.5"),
        (2e-7, "2e-7"), (-0.0, "0"), (12345.678, "12345.678"), (1e-6, "0.000001"), (1.25e-5, "0.0000125"),
    ] as [(Double, String)])
    func theLayoutsOfNumberToString(value: Double, expected: String) {
        var writer = JSONWriter()
        writer.writeECMAScriptNumber(value)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
    }

    @Test func integersAndDoublesHashAlikeAndBigIntegersAsTheirNearestDouble() {
        #expect(canonical(.int(1)) == canonical(.double(1.0)))
        #expect(canonical(.int(-42)) == "-42")
        #expect(canonical(.int(9_007_199_254_740_993)) == "9007199254740992")
        #expect(canonical(.int(Int.max)) == "9223372036854776000")
        #expect(canonical(.int(Int.min)) == "-9223372036854776000")
    }

    @Test func membersSortByUTF16CodeUnitsAtEveryLevel() {
        // RFC 8785 section 3.2.3's example: "\r", "1", "\u0080", "ö", "€", "😂", "ﬂ" sort so.
        let object: JSONValue = [
            "\u{20AC}": "Euro Sign", "\r": "Carriage Return", "\u{FB33}": "Hebrew Letter Dalet With Dagesh",
            "1": "One", "\u{1F600}": "Emoji: Grinning Face", "\u{80}": "Control", "\u{F6}": "Latin Small Letter O With Diaeresis",
        ]
        #expect(canonical(object) == "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\",\"\u{F6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20AC}\":\"Euro Sign\",\"\u{1F600}\":\"Emoji: Grinning Face\",\"\u{FB33}\":\"Hebrew Letter Dalet With Dagesh\"}")
        let nested: JSONValue = ["b": ["z": 1, "a": [["y": true, "x": .null]]], "a": "first"]
        #expect(canonical(nested) == #"{"a":"first","b":{"a":[{"x":null,"y":true}],"z":1}}"#)
    }

    @Test func theRFCExampleCanonicalizes() throws {
        // RFC 8785 section 3.2.2's input, parsed and written back canonically.
        let input = #"""
        {
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }
        """#
        let value = try JSONValue(parsing: input)
        #expect(canonical(value) == #"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#)
    }

    @Test func stringsEscapeOnlyWhatTheSchemeEscapes() {
        #expect(canonical(.string("tab\there \"q\" back\\slash \u{1} é 😀 \u{2028}")) == "\"tab\\there \\\"q\\\" back\\\\slash \\u0001 é 😀 \u{2028}\"")
    }
}
