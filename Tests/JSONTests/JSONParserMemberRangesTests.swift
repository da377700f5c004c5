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

    @Test func anUnparsedMemberIsLeftOutAndWhereItWasWrittenIsReported() throws {
        let bytes = Array(#"{"type":"action", "action" : {"type":"set","value":[1,{"a":null}]} ,"ref":"r1","id":null}"#.utf8)
        let parsed = try JSONParser().parse(bytes, rangesOf: ["ref", "action", "absent"], unparsed: "action")
        #expect(parsed.value == ["type": "action", "ref": "r1", "id": .null])
        #expect(parsed.ranges.map { $0.map { String(decoding: bytes[$0], as: UTF8.self) } }
            == [#""r1""#, #"{"type":"set","value":[1,{"a":null}]}"#, nil])
    }

    /// Every malformed input of the rejection suite, as the unparsed member (alone and inside
    /// an array and an object): the same error, at the same place, as when it is parsed.
    @Test(arguments: JSONParserRejectionTests.cases)
    func anUnparsedMemberIsCheckedAsStrictlyAsAParsedOne(_ input: Malformed) {
        for (open, close) in [("", ""), ("[0,", "]"), (#"{"k":"#, "}")] {
            let bytes = Array(#"{"ref":1,"action":\#(open)"#.utf8) + input.bytes + Array(#"\#(close),"id":"x"}"#.utf8)
            let parsed = Result { () throws(JSONParseError) in try JSONParser().parse(bytes) }
            let unparsed = Result { () throws(JSONParseError) in try JSONParser().parse(bytes, rangesOf: [], unparsed: "action").value }
            switch (parsed, unparsed) {
            case (.failure(let full), .failure(let skipped)):
                #expect(full == skipped, "\(open)…\(close)")
            case (.success(.object(var full)), .success(let skipped)):
                full.removeValue(forKey: "action")
                #expect(JSONValue.object(full) == skipped, "\(open)…\(close)")
            default:
                Issue.record("\(open)…\(close): parsed \(parsed), unparsed \(unparsed)")
            }
        }
    }
}
