@testable import ReactorHubEngine
import ReactorHubJSON
import Testing

/// PROTOCOL.md "Actions that are safe to resend", on one node: an action id answered once
/// is not applied again; its resend gets the first reply with `"duplicate":true`.
@Suite("Idempotent action ids on one node")
struct ActionIDTests {
    private func append(_ address: String, _ value: Int, id: String, ref: String) -> String {
        #"{"type":"action","reactor":"\#(address)","action":{"type":"patch","ops":[{"op":"add","path":"/list/-","value":\#(value)}]},"id":"\#(id)","ref":"\#(ref)"}"#
    }

    /// Joins `address`, sets `/list` to `[]` and returns the client at version 1.
    private func prepared(_ server: TestServer, _ address: String) async throws -> ProtocolClient {
        let client = try await server.connect()
        try await client.join(address)
        try await client.send(#"{"type":"action","reactor":"\#(address)","action":{"type":"set","path":"/list","value":[]},"ref":"init"}"#)
        #expect(try await client.next()["type"] == "ack")
        #expect(try await client.next()["version"] == 1)
        return client
    }

    @Test func resentIDGetsTheFirstReplyMarkedDuplicateAndIsNotAppliedAgain() async throws {
        try await withHub { hub, server in
            let client = try await prepared(server, "doc/dedupe")
            try await client.send(append("doc/dedupe", 7, id: "a-1", ref: "first"))
            #expect(try await client.nextText() == #"{"type":"ack","reactor":"doc/dedupe","ref":"first","version":1,"applied":2}"#)
            #expect(try await client.next()["version"] == 2)
            try await client.send(append("doc/dedupe", 7, id: "a-1", ref: "again"))
            #expect(try await client.nextText()
                == #"{"type":"ack","reactor":"doc/dedupe","ref":"again","version":1,"applied":2,"duplicate":true}"#)
            await client.expectSilence()
            // A second connection (a reconnect) resending the id: still not applied.
            let other = try await server.connect()
            let snapshot = try await other.join("doc/dedupe")
            #expect(snapshot["version"] == 2)
            #expect(snapshot["state"] == .object(["list": [7]]))
            try await other.send(append("doc/dedupe", 7, id: "a-1", ref: "9"))
            #expect(try await other.nextText()
                == #"{"type":"ack","reactor":"doc/dedupe","ref":"9","version":1,"applied":2,"duplicate":true}"#)
            await other.expectSilence()
            let rendered = hub.renderMetrics()
            #expect(rendered.contains(#"reactorhub_actions_total{kind="doc",result="duplicate"} 2"#))
        }
    }

    @Test func resentIDOfARefusedActionGetsTheSameError() async throws {
        try await withHub { _, server in
            let client = try await prepared(server, "doc/dedupe-error")
            let remove = #"{"type":"action","reactor":"doc/dedupe-error","action":{"type":"remove","path":"/missing"},"id":"r","ref":"#
            try await client.send(remove + "1}")
            let first = try await client.next()
            #expect(first["type"] == "error")
            #expect(first["code"] == "invalid_action")
            try await client.send(remove + "2}")
            let again = try await client.next()
            #expect(again["type"] == "error")
            #expect(again["ref"] == 2)
            #expect(again["message"] == first["message"])
            #expect(again["duplicate"] == true)
        }
    }

    @Test func resendWhileTheFirstIsPendingWaitsForItsReply() async throws {
        try await withHub { _, server in
            let client = try await prepared(server, "doc/dedupe-pending")
            // Both reach the instance before the first is answered (one frame after the other).
            try await client.send(append("doc/dedupe-pending", 1, id: "p", ref: "x"))
            try await client.send(append("doc/dedupe-pending", 1, id: "p", ref: "y"))
            var replies: [String: JSONValue] = [:]
            var patches = 0
            while replies.count < 2 || patches < 1 {
                let message = try await client.next()
                if message["type"] == "patch" {
                    patches += 1
                } else if let ref = message["ref"]?.stringValue {
                    replies[ref] = message
                }
            }
            #expect(replies["x"]?["type"] == "ack")
            #expect(replies["x"]?["duplicate"] == nil)
            #expect(replies["y"]?["type"] == "ack")
            #expect(replies["y"]?["duplicate"] == true)
            #expect(replies["y"]?["version"] == replies["x"]?["version"])
            await client.expectSilence()
            let other = try await server.connect()
            #expect(try await other.join("doc/dedupe-pending")["state"] == .object(["list": [1]]))
        }
    }

    @Test func anIDIsForgottenOnceItsWindowHasPassed() async throws {
        try await withHub(configure: { $0.dedupeWindow = .milliseconds(150) }) { _, server in
            let client = try await prepared(server, "doc/dedupe-window")
            try await client.send(append("doc/dedupe-window", 1, id: "w", ref: "1"))
            #expect(try await client.next()["type"] == "ack")
            #expect(try await client.next()["version"] == 2)
            try await Task.sleep(for: .milliseconds(400))
            try await client.send(append("doc/dedupe-window", 1, id: "w", ref: "2"))
            let again = try await client.next()
            #expect(again["type"] == "ack")
            #expect(again["duplicate"] == nil)
            #expect(try await client.next()["version"] == 3)
        }
    }

    @Test func theOldestIDsAreForgottenBeyondTheEntriesCap() async throws {
        try await withHub(configure: { $0.dedupeEntries = 2 }) { _, server in
            let client = try await prepared(server, "doc/dedupe-cap")
            for (index, id) in ["a", "b", "c"].enumerated() {
                try await client.send(append("doc/dedupe-cap", index, id: id, ref: id))
                #expect(try await client.next()["type"] == "ack")
                #expect(try await client.next()["version"] == .int(index + 2))
            }
            try await client.send(append("doc/dedupe-cap", 2, id: "c", ref: "c2"))
            #expect(try await client.next()["duplicate"] == true)
            try await client.send(append("doc/dedupe-cap", 0, id: "a", ref: "a2"))
            let reapplied = try await client.next()
            #expect(reapplied["type"] == "ack")
            #expect(reapplied["duplicate"] == nil)
            #expect(try await client.next()["version"] == 5)
        }
    }

    @Test(arguments: [#""id":"""#, #""id":7"#, #""id":"\#(String(repeating: "x", count: 65))""#])
    func anIDMustBeAStringOfOneTo64Characters(member: String) async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            try await client.join("doc/dedupe-bad")
            try await client.send(#"{"type":"action","reactor":"doc/dedupe-bad","action":{"type":"emit","name":"n"},\#(member),"ref":1}"#)
            let reply = try await client.next()
            #expect(reply["type"] == "error")
            #expect(reply["code"] == "bad_request")
            #expect(reply["ref"] == 1)
        }
    }
}

@Suite("ActionIDWindow")
struct ActionIDWindowTests {
    @Test func answeredIDsExpireByTimeAndByCountInAnswerOrder() {
        var window = ActionIDWindow<Int>(window: .seconds(10), capacity: 2)
        let start = ContinuousClock.now
        guard case .new = window.begin("a", waiter: 0, now: start) else { Issue.record("a is new"); return }
        #expect(window.answer("a", reply: [1], now: start).isEmpty)
        guard case .new = window.begin("b", waiter: 0, now: start) else { Issue.record("b is new"); return }
        guard case .pending = window.begin("b", waiter: 5, now: start) else { Issue.record("b is pending"); return }
        #expect(window.answer("b", reply: [2], now: start + .seconds(1)) == [5])
        guard case .answered(let reply) = window.begin("a", waiter: 0, now: start + .seconds(2)) else {
            Issue.record("a is answered"); return
        }
        #expect(reply == [1])
        _ = window.begin("c", waiter: 0, now: start + .seconds(2))
        _ = window.answer("c", reply: [3], now: start + .seconds(2))
        #expect(!window.isAnswered("a"))
        #expect(window.isAnswered("b") && window.isAnswered("c"))
        _ = window.begin("x", waiter: 0, now: start + .seconds(11))
        #expect(!window.isAnswered("b"))
        #expect(window.isAnswered("c"))
        #expect(window.answeredCount == 1)
    }
}
