import ReactorHubJSON
import Testing

@Suite("Where the top-level members were written (parseWithMemberRanges)")
struct JSONParserMemberRangesTests {
    func written(_ text: String) throws -> [String: String] {
        let bytes = Array(text.utf8)
        let parsed = try JSONParser().parseWithMemberRanges(bytes)
        #expect(parsed.value == (try JSONParser().parse(bytes)))
        return parsed.memberRanges.mapValues { String(decoding: bytes[$0], as: UTF8.self) }
    }

    @Test func eachMemberValueIsReportedAsWrittenWithoutTheWhitespaceAround() throws {
        let ranges = try written(#"{ "ref" :  1E2 , "s":"\u0041", "o":{"ref":5}, "a":[1, 2.50] }"#)
        #expect(ranges == ["ref": "1E2", "s": #""\u0041""#, "o": #"{"ref":5}"#, "a": "[1, 2.50]"])
    }

    @Test func aRepeatedKeyReportsTheValueKept() throws {
        #expect(try written(#"{"k":1,"k":-0.0}"#) == ["k": "-0.0"])
    }

    @Test func aTopLevelOtherThanAnObjectReportsNothing() throws {
        #expect(try written("[1,2]").isEmpty)
        #expect(try written(" 1E2 ").isEmpty)
    }

    @Test func errorsAreTheParsersErrors() {
        #expect(throws: JSONParseError.self) { try JSONParser().parseWithMemberRanges(Array(#"{"ref":01}"#.utf8)) }
    }
}
