@testable import ReactorHubEngine
import ReactorHubJSON
import Testing

/// The doc kind's edits reach subscribers as the operations that made them
/// (`JSONValueRepresentable.jsonPatch`), not as a diff of the whole document: an edit costs
/// what it changed (docs/reactors.md, the doc kind).
@Suite("Doc edits are published as they were made")
struct DocEditPatchTests {
    @Test func aPatchIsSentWithTheOperationsItWasMadeOf() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            try await client.join("doc/ops")
            try await client.send(#"{"type":"action","reactor":"doc/ops","action":{"type":"set","path":"/list","value":[1]},"ref":"a"}"#)
            #expect(try await client.next()["type"] == "ack")
            #expect(try await client.next()["patch"] == [["op": "add", "path": "/list", "value": [1]]])
            // A diff of [1] and [0,1,2] would add at 0 and at 2; the edit added at 1, then at 0.
            let ops = #"[{"op":"add","path":"/list/1","value":2},{"op":"add","path":"/list/0","value":0}]"#
            try await client.send(#"{"type":"action","reactor":"doc/ops","action":{"type":"patch","ops":\#(ops)},"ref":"b"}"#)
            #expect(try await client.next()["type"] == "ack")
            let patch = try await client.next()
            #expect(patch["version"] == 2)
            #expect(patch["patch"] == (try JSONValue(parsing: ops)))
        }
    }
}
