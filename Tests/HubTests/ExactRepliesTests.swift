import ReactorHubJSON
import Testing

/// Replies are byte-exact: a `ref` comes back as the client wrote it, and a snapshot is
/// written exactly as the copies subscribers patched. Before, a numeric ref came back
/// re-encoded (`1E2` as `100.0`) and a change from `1` to `1.0` sent no patch, so a later
/// snapshot showed `1.0` where subscribers held `1`.
@Suite("Byte-exact replies")
struct ExactRepliesTests {
    @Test(arguments: [TestTransport.inMemory, .overTheWire])
    func refsComeBackAsWritten(transport: TestTransport) async throws {
        try await withHub(transport: transport) { _, server in
            let client = try await server.connect()
            for ref in ["1E2", "18446744073709551616", "-0.0", #""\u0041\n""#, #""é""#] {
                try await client.send(#"{"type":"ping","ref":\#(ref)}"#)
                #expect(try await client.nextText() == #"{"type":"pong","ref":\#(ref)}"#)
            }
        }
    }

    @Test func everyReplyCarriesTheRefAsWritten() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            try await client.send(#"{"type":"join","reactor":"doc/refs","ref":1.0E+2}"#)
            #expect(try await client.nextText().hasPrefix(#"{"type":"snapshot","reactor":"doc/refs","ref":1.0E+2,"#))
            try await client.send(#"{"type":"action","reactor":"doc/refs","action":{"type":"set","path":"/a","value":1},"ref":"\u0061"}"#)
            #expect(try await client.nextText() == #"{"type":"ack","reactor":"doc/refs","ref":"\u0061","version":0,"applied":1}"#)
            _ = try await client.next()
            try await client.send(#"{"type":"action","reactor":"doc/refs","action":"jump","ref":1e0}"#)
            #expect(try await client.nextText().hasPrefix(#"{"type":"error","ref":1e0,"code":"unknown_action","#))
            try await client.send(#"{"type":"leave","reactor":"doc/refs","ref":2.50}"#)
            #expect(try await client.nextText() == #"{"type":"left","reactor":"doc/refs","ref":2.50}"#)
        }
    }

    @Test func aRefOf65DigitsIsABadRequest() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            try await client.send(#"{"type":"ping","ref":\#(String(repeating: "1", count: 65))}"#)
            let reply = try await client.next()
            #expect(reply["type"] == "error")
            #expect(reply["code"] == "bad_request")
            #expect(reply["ref"] == nil)
        }
    }

    @Test func aChangeFromOneToOnePointZeroIsPatchedAndSnapshotsMatchTheCopies() async throws {
        try await withHub { _, server in
            let writer = try await server.connect()
            let reader = try await server.connect()
            try await writer.join("doc/numbers")
            var copy = try #require(try await reader.join("doc/numbers")["state"])
            func set(_ member: String, _ value: String) async throws {
                try await writer.send(#"{"type":"action","reactor":"doc/numbers","action":{"type":"set","path":"/\#(member)","value":\#(value)}}"#)
            }
            try await set("n", "1")
            try await set("n", "1.0")
            try await set("m", #""later""#)
            var versions: [Int] = []
            for _ in 0..<3 {
                let patch = try await reader.next()
                #expect(patch["type"] == "patch")
                versions.append(patch["version"]?.intValue ?? -1)
                copy = try JSONPatch.apply(try #require(patch["patch"]), to: copy)
            }
            #expect(versions == [1, 2, 3])
            #expect(copy["n"] == .double(1.0))

            let late = try await server.connect()
            try await late.send(#"{"type":"join","reactor":"doc/numbers"}"#)
            let snapshot = Array(try await late.nextText().utf8)
            let parsed = try JSONParser().parseWithMemberRanges(snapshot)
            let stateText = Array(snapshot[try #require(parsed.memberRanges["state"])])
            var text = JSONWriter()
            text.writeValue(copy)
            #expect(String(decoding: stateText, as: UTF8.self) == #"{"n":1.0,"m":"later"}"#)
            #expect(text.bytes == stateText)
        }
    }
}
