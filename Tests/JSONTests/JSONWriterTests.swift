import Testing
import ReactorHubJSON

@Suite struct JSONWriterTests {
    private func text(_ value: JSONValue) -> String {
        String(decoding: value.serialized(), as: UTF8.self)
    }

    @Test func writesCompactJSONInMemberOrder() {
        let value: JSONValue = ["type": "patch", "version": 42, "ok": true, "none": .null, "list": [1, 2.5, "x"], "empty": [:]]
        #expect(text(value) == #"{"type":"patch","version":42,"ok":true,"none":null,"list":[1,2.5,"x"],"empty":{}}"#)
    }

    @Test func escapesEveryControlCharacter() throws {
        for scalar in 0..<0x20 {
            let character = String(UnicodeScalar(UInt8(scalar)))
            let written = text(.string(character))
            let expected: String
            switch scalar {
            case 0x08: expected = #""\b""#
            case 0x09: expected = #""\t""#
            case 0x0A: expected = #""\n""#
            case 0x0C: expected = #""\f""#
            case 0x0D: expected = #""\r""#
            default:
                let hex = String(scalar, radix: 16)
                expected = "\"\\u00\(hex.count == 1 ? "0" : "")\(hex)\""
            }
            #expect(written == expected, "U+\(String(scalar, radix: 16))")
            #expect(try JSONValue(parsing: written) == .string(character))
        }
    }

    @Test func specialCharactersAtEveryPositionOfAWordRoundTrip() throws {
        var checked = 0
        for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "🎉", "\u{7F}"] {
            for length in 0...20 {
                for position in 0...length {
                    var text = String(repeating: "a", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                    let written = JSONValue.string(text).serialized()
                    #expect(try JSONValue(parsing: written) == .string(text))
                    checked += 1
                }
            }
        }
        #expect(checked == 8 * 231)
    }

    @Test func escapesQuoteAndBackslashButNotSlashOrDelete() {
        #expect(text(.string("a\"b\\c/d\u{7F}")) == "\"a\\\"b\\\\c/d\u{7F}\"")
    }

    @Test func writesNonASCIITextAsRawUTF8() throws {
        let korean = "안녕하세요, 세계 🎉 \u{2028}\u{2029}"
        let bytes = JSONValue.string(korean).serialized()
        #expect(bytes == Array("\"\(korean)\"".utf8))
        #expect(try JSONValue(parsing: bytes) == .string(korean))
    }

    @Test func integersStayIntegers() throws {
        #expect(text(1) == "1")
        #expect(text(.int(Int.min)) == "-9223372036854775808")
        #expect(text(.int(Int.max)) == "9223372036854775807")
        #expect(text(-7) == "-7")
        #expect(try JSONValue(parsing: text(1)).intValue == 1)
    }

    @Test func integralDoublesKeepAFractionSoTheyParseBackAsDoubles() throws {
        #expect(text(1.0) == "1.0")
        #expect(text(-0.0) == "-0.0")
        #expect(text(.double(1e16)) == "1e+16")
        let reparsed = try JSONValue(parsing: text(1.0))
        guard case .double(let number) = reparsed else {
            Issue.record("1.0 came back as \(reparsed)")
            return
        }
        #expect(number == 1.0)
    }

    @Test func doublesUseTheShortestRoundTripForm() throws {
        let cases: [(Double, String)] = [
            (3.5, "3.5"), (0.1, "0.1"), (0.1 + 0.2, "0.30000000000000004"), (1e-5, "1e-05"),
            (123456.789, "123456.789"), (.leastNonzeroMagnitude, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
            (-2.5e-10, "-2.5e-10"), (4503599627370495.5, "4503599627370495.5"),
        ]
        for (number, expected) in cases {
            #expect(text(.double(number)) == expected)
            #expect(try JSONValue(parsing: expected).doubleValue == number)
        }
    }

    @Test func nonFiniteDoublesHaveNoJSONFormAndAreWrittenAsNull() {
        #expect(text([.double(.nan), .double(.infinity), .double(-.infinity)]) == "[null,null,null]")
    }

    @Test func framesAMessageAfterReservedHeadroom() throws {
        var writer = JSONWriter(reservingHeadroom: 16)
        writer.writeRaw(#"{"type":"patch","reactor":"#)
        writer.writeString("counter/lobby")
        writer.writeRaw(#","version":"#)
        writer.writeInt(42)
        writer.writeRaw(#","patch":"#)
        writer.writePatch([.replace(path: "/value", value: 1), .remove(path: "/a~1b")])
        writer.writeRaw("}")
        #expect(writer.bytes.prefix(16) == ArraySlice(repeating: 0, count: 16))
        let payload = String(decoding: writer.bytes.dropFirst(16), as: UTF8.self)
        #expect(payload == #"{"type":"patch","reactor":"counter/lobby","version":42,"patch":[{"op":"replace","path":"/value","value":1},{"op":"remove","path":"/a~1b"}]}"#)
    }

    @Test func appendsToAnExistingBuffer() {
        var writer = JSONWriter(buffer: Array("head:".utf8))
        writer.writeKey("k")
        writer.writeBool(false)
        writer.writeByte(UInt8(ascii: ","))
        writer.writeNull()
        writer.writeValue(["a": [1]])
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"head:"k":false,null{"a":[1]}"#)
    }

    @Test func writesEveryOperationKindLikeItsJSONValue() throws {
        let operations: [PatchOperation] = [
            .add(path: "/a/-", value: ["x": 1]), .remove(path: "/b"), .replace(path: "", value: "v"),
            .move(from: "/c", path: "/d~0e"), .copy(from: "/f/0", path: "/g"), .test(path: "/h", value: .null),
        ]
        var writer = JSONWriter()
        writer.writePatch(operations)
        let direct = try JSONValue(parsing: writer.bytes)
        #expect(direct == JSONPatch.jsonValue(of: operations))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == JSONPatch.jsonValue(of: operations).description)
        #expect(try JSONPatch.operations(from: direct) == operations)
    }

    @Test func escapesPointersForBothFormats() {
        var writer = JSONWriter()
        writer.writePointer(JSONPointer(tokens: ["a/b", "c~d", "q\"uote", "ü"]))
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #""/a~1b/c~0d/q\"uote/ü""#)
    }
}
