import ReactorHubJSON
import ReactorHubProtocol
import Testing

/// `JSONCodec.ack` and `PatchFrame` write their message in place once they have counted its
/// bytes; an address (or a sum) that needs escapes is escaped as a `JSONWriter` would.
@Suite("Acks and patch frames written in place")
struct PlacedMessageTests {
    let codec = JSONCodec()

    @Test(arguments: [
        ("doc/b1", nil, 0, 0, #"{"type":"ack","reactor":"doc/b1","version":0,"applied":0}"#),
        ("counter/lobby", Ref(integerLiteral: 7), 9, 10, #"{"type":"ack","reactor":"counter/lobby","ref":7,"version":9,"applied":10}"#),
        ("todo/a.b_c-d", Ref(json: Array(#""\u0041 x""#.utf8)), 10, 99, #"{"type":"ack","reactor":"todo/a.b_c-d","ref":"\u0041 x","version":10,"applied":99}"#),
        ("doc/x", Ref(json: Array("1E2".utf8)), Int.max, 1_000_000, #"{"type":"ack","reactor":"doc/x","ref":1E2,"version":9223372036854775807,"applied":1000000}"#),
        // Not an address a hub makes, but written right: escaped.
        (#"doc/"q""#, Ref(integerLiteral: 1), 1, 2, #"{"type":"ack","reactor":"doc/\"q\"","ref":1,"version":1,"applied":2}"#),
        ("doc/\u{E9}", nil, 3, 3, "{\"type\":\"ack\",\"reactor\":\"doc/\u{E9}\",\"version\":3,\"applied\":3}"),
    ] as [(String, Ref?, Int, Int, String)])
    func acksAreWrittenAsTheProtocolSays(address: String, ref: Ref?, version: Int, applied: Int, expected: String) throws {
        let message = codec.ack(address, ref: ref, version: version, applied: applied)
        #expect(message.text == expected)
        #expect(message.count == expected.utf8.count)
        #expect(message.headroom == OutboundMessage.standardHeadroom)
        let parsed = try JSONValue(parsing: message.text)
        #expect(parsed["version"] == .int(version))
        #expect(parsed["applied"] == .int(applied))
    }

    @Test(arguments: [
        ("doc/b1", 1, 0, nil, "[]", #"{"type":"patch","reactor":"doc/b1","version":1,"patch":[]}"#),
        ("doc/b1", 12, 11, "9f3a", #"[{"op":"add","path":"/s0","value":{"t":1}}]"#,
         #"{"type":"patch","reactor":"doc/b1","version":12,"sum":"9f3a","patch":[{"op":"add","path":"/s0","value":{"t":1}}]}"#),
        ("chat/r", 1_000, 990, nil, #"[{"op":"remove","path":"/a"}]"#,
         #"{"type":"patch","reactor":"chat/r","version":1000,"base":990,"patch":[{"op":"remove","path":"/a"}]}"#),
        ("doc/x", 0, -1, nil, "[]", #"{"type":"patch","reactor":"doc/x","version":0,"patch":[]}"#),
        ("doc/x", 3, -12, nil, "[]", #"{"type":"patch","reactor":"doc/x","version":3,"base":-12,"patch":[]}"#),
        // Not an address or a sum a hub makes, but written right: escaped.
        (#"doc/"q""#, 5, 3, #"s"1"#, "[]", #"{"type":"patch","reactor":"doc/\"q\"","version":5,"base":3,"sum":"s\"1","patch":[]}"#),
    ] as [(String, Int, Int, String?, String, String)])
    func patchFramesAreWrittenAsTheProtocolSays(address: String, version: Int, base: Int, sum: String?, operations: String, expected: String) throws {
        let frame = PatchFrame(address: address, version: version, base: base, operations: Array(operations.utf8), sum: sum)
        #expect(frame.message.text == expected)
        #expect(frame.message.count == expected.utf8.count)
        #expect(frame.withOperations { String(decoding: $0, as: UTF8.self) } == operations)
        #expect(frame.operationsCount == operations.utf8.count)
        let merged = PatchFrame.merge([frame, PatchFrame(address: address, version: version + 1, base: version, operations: Array(#"[{"op":"remove","path":"/z"}]"#.utf8), sum: sum)])
        let joined = operations == "[]" ? #"[{"op":"remove","path":"/z"}]"# : String(operations.dropLast()) + #",{"op":"remove","path":"/z"}]"#
        #expect(merged.withOperations { String(decoding: $0, as: UTF8.self) } == joined)
        #expect(try JSONValue(parsing: merged.message.text)["version"] == .int(version + 1))
    }
}
