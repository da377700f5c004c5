import ReactorHubProtocol
import Testing
@testable import ReactorHubWebSocketServer

/// How messages become events on a stream (API.md "The event stream"), without sockets.
@Suite("Event stream framing")
struct EventStreamFramingTests {
    static let codec = JSONCodec()

    static func frame(_ messages: [OutboundMessage]) -> (text: String, outcomes: [EventStreamFraming.Outcome]) {
        var framing = EventStreamFraming()
        var buffer: [UInt8] = []
        let outcomes = messages.map { framing.append($0, to: &buffer) }
        return (String(decoding: buffer, as: UTF8.self), outcomes)
    }

    @Test func eachEventIsNamedAndCarriesEpochColonVersionAndTheMessage() {
        let snapshot = Self.codec.snapshot("doc/a", ref: nil, epoch: "e1", version: 4, state: Array(#"{"n":1}"#.utf8), presence: .entries([]))
        let patch = Self.codec.patch("doc/a", version: 5, base: 4, operations: Array(#"[{"op":"add","path":"/m","value":2}]"#.utf8)).message
        let pulse = Self.codec.pulse("doc/a", version: 5, name: "event", value: ["name": "x"])
        let presence = Self.codec.presence("doc/a", .changes(joins: [], leaves: ["c2"]))
        let (text, outcomes) = Self.frame([snapshot, patch, pulse, presence])
        #expect(outcomes == [.event, .event, .event, .event])
        #expect(text == """
        event: snapshot
        id: e1:4
        data: \(snapshot.text)

        event: patch
        id: e1:5
        data: \(patch.text)

        event: pulse
        id: e1:5
        data: \(pulse.text)

        event: presence
        id: e1:5
        data: \(presence.text)


        """)
    }

    @Test func aResumeMovesTheIdAndSendsOnlyTheMissedPatches() {
        let resumed = Self.codec.resumed("doc/a", ref: nil, epoch: "e9", version: 12, presence: .entries([]))
        let merged = Self.codec.patch("doc/a", version: 15, base: 12, operations: Array("[]".utf8)).message
        let (text, outcomes) = Self.frame([resumed, merged])
        #expect(outcomes == [.skipped, .event])
        #expect(text == "event: patch\nid: e9:15\ndata: \(merged.text)\n\n")
    }

    @Test func repliesCarryNothingAndARefusalEndsTheStream() {
        let hello = Self.codec.pong(ref: 1)
        let refusal = Self.codec.error(ProtocolError(.forbidden, "no"), ref: nil)
        let (text, outcomes) = Self.frame([hello, refusal])
        #expect(outcomes == [.skipped, .last])
        #expect(text == "event: error\ndata: \(refusal.text)\n\n")
    }

    @Test func aCommentIsALineOfItsOwn() {
        #expect(EventStreamFraming.comment("keepalive") == Array(": keepalive\n\n".utf8))
    }

    @Test func versionsAreWrittenInDecimal() {
        for value in [0, 7, 9, 10, 99, 100, 1_000, 1_234_567_890, Int.max] {
            var buffer: [UInt8] = []
            EventStreamFraming.appendDecimal(value, to: &buffer)
            #expect(String(decoding: buffer, as: UTF8.self) == String(value))
        }
    }

    @Test func theOriginRuleTellsTheSameOriginFromAListedOne() {
        let policy = OriginPolicy(allowed: ["https://app.example"], secure: false)
        #expect(policy.verdict(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080") == .sameOrigin)
        #expect(policy.verdict(origin: "https://app.example", host: "127.0.0.1:8080") == .listed)
        #expect(policy.verdict(origin: "https://evil.example", host: "127.0.0.1:8080") == .refused)
        #expect(OriginPolicy(allowed: ["*"], secure: false).verdict(origin: "https://evil.example", host: "x") == .listed)
    }
}
