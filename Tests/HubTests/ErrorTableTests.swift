import ReactorHubEngine
import ReactorHubJSON
import TestSupport
import Testing

@Suite("Refusals: every error leaves the connection usable")
struct ErrorTableTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var message: String
        var code: String
        var ref: JSONValue?
        var mentions: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "bad JSON", message: #"{"type":"ping""#, code: "bad_json", ref: nil, mentions: ["JSON"]),
        Case(name: "not an object", message: #"[1,2]"#, code: "bad_request", ref: nil, mentions: ["object"]),
        Case(name: "unknown type", message: #"{"type":"jump","ref":7}"#, code: "bad_request", ref: 7, mentions: ["jump", "join, leave, action, ping"]),
        Case(name: "missing type", message: #"{"ref":"x"}"#, code: "bad_request", ref: "x", mentions: ["type"]),
        Case(name: "bad ref", message: #"{"type":"ping","ref":{"a":1}}"#, code: "bad_request", ref: nil, mentions: ["ref"]),
        Case(name: "long ref", message: #"{"type":"ping","ref":"\#(String(repeating: "r", count: 65))"}"#, code: "bad_request", ref: nil, mentions: ["64"]),
        Case(name: "unknown kind", message: #"{"type":"join","reactor":"chess/1","ref":2}"#, code: "unknown_reactor", ref: 2, mentions: ["chess", "counter", "weather"]),
        Case(name: "malformed address", message: #"{"type":"join","reactor":"Counter/x y","ref":3}"#, code: "invalid_reactor", ref: 3, mentions: ["KIND/ID"]),
        Case(name: "missing reactor", message: #"{"type":"join"}"#, code: "bad_request", ref: nil, mentions: ["reactor"]),
        Case(name: "action before join", message: #"{"type":"action","reactor":"counter/e","action":"increase","ref":4}"#, code: "not_joined", ref: 4, mentions: ["counter/e"]),
        Case(name: "leave before join", message: #"{"type":"leave","reactor":"counter/e","ref":5}"#, code: "not_joined", ref: 5, mentions: ["counter/e"]),
        Case(name: "bad since", message: #"{"type":"join","reactor":"counter/e","since":{"epoch":1}}"#, code: "bad_request", ref: nil, mentions: ["since"]),
    ]

    @Test(arguments: cases, [TestTransport.inMemory, .overTheWire])
    func refusalIsAnsweredAndPingStillWorks(_ testCase: Case, transport: TestTransport) async throws {
        try await withHub(transport: transport) { _, server in
            let client = try await server.connect()
            try await client.send(testCase.message)
            let reply = try await client.next()
            #expect(reply["type"] == "error")
            #expect(reply["code"]?.stringValue == testCase.code)
            #expect(reply["ref"] == testCase.ref)
            let message = reply["message"]?.stringValue ?? ""
            for word in testCase.mentions {
                #expect(message.contains(word), "message '\(message)' should mention '\(word)'")
            }
            try await client.pingPong()
        }
    }

    @Test func unknownActionListsTheActionsAndChangesNothing() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            try await client.join("counter/e")
            try await client.send(#"{"type":"action","reactor":"counter/e","action":{"type":"jump"},"ref":3}"#)
            let reply = try await client.next()
            #expect(reply["code"] == "unknown_action")
            #expect(reply["ref"] == 3)
            #expect(reply["message"] == "counter has no action 'jump'; actions: increase, decrease")
            try await client.pingPong()
            let again = try await client.join("counter/e", ref: 9)
            #expect(again["version"] == 0)
        }
    }

    @Test func wrongMemberTypeNamesTheMember() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            try await client.join("weather/e")
            try await client.send(#"{"type":"action","reactor":"weather/e","action":{"type":"searchCityWeather","city":5},"ref":1}"#)
            let reply = try await client.next()
            #expect(reply["code"] == "invalid_action")
            #expect(reply["message"]?.stringValue?.contains("city") == true)
            try await client.send(#"{"type":"action","reactor":"weather/e","action":{"type":"searchCityWeather","citty":"Seoul"},"ref":2}"#)
            let typo = try await client.next()
            #expect(typo["code"] == "invalid_action")
            #expect(typo["message"]?.stringValue?.contains("citty") == true)
            try await client.pingPong()
        }
    }

    @Test func joinsPastTheLimitAreRefused() async throws {
        try await withHub(configure: { $0.maxJoinsPerConnection = 2 }) { _, server in
            let client = try await server.connect()
            try await client.join("counter/a")
            try await client.join("counter/b")
            try await client.send(#"{"type":"join","reactor":"counter/c","ref":"c"}"#)
            let reply = try await client.next()
            #expect(reply["code"] == "too_many_joins")
            #expect(reply["ref"] == "c")
            try await client.pingPong()
            try await client.send(#"{"type":"leave","reactor":"counter/a"}"#)
            #expect(try await client.next()["type"] == "left")
            try await client.join("counter/c")
        }
    }

    @Test func actionsPastTheRateAreRefusedThenAllowedAgain() async throws {
        try await withHub(configure: {
            // A slow refill: the four actions arrive well within half a second of each other
            // even on a loaded machine.
            $0.actionsPerSecond = 2
            $0.actionBurst = 3
        }) { _, server in
            let client = try await server.connect()
            try await client.join("weather/rate")
            for ref in 1...4 {
                try await client.send(#"{"type":"action","reactor":"weather/rate","action":{"type":"nope"},"ref":\#(ref)}"#)
            }
            var codes: [String] = []
            for _ in 1...4 {
                codes.append(try await client.next()["code"]?.stringValue ?? "")
            }
            #expect(codes == ["unknown_action", "unknown_action", "unknown_action", "rate_limited"])
            try await client.pingPong()
            try await Task.sleep(for: .milliseconds(1200))
            try await client.send(#"{"type":"action","reactor":"weather/rate","action":{"type":"nope"},"ref":5}"#)
            #expect(try await client.next()["code"] == "unknown_action")
        }
    }
}
