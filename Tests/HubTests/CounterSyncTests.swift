import ReactorHubEngine
import ReactorHubJSON
import TestSupport
import Testing

@Suite("Counter over protocol v1")
struct CounterSyncTests {
    @Test func helloDescribesEveryKindFromItsTypes() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            #expect(client.hello["type"] == "hello")
            #expect(client.hello["protocol"] == 1)
            #expect(client.hello["server"] == "reactorhub/0.1.0")
            #expect(client.session.hasPrefix("c"))
            let reactors = try #require(client.hello["reactors"])
            #expect(reactors["counter"] == .object([
                "actions": .object(["increase": .object([:]), "decrease": .object([:])]),
                "pulses": ["alertMessage"],
            ]))
            #expect(reactors["weather"] == .object([
                "actions": .object(["searchCityWeather": .object(["city": "string"])]),
                "pulses": ["errorMessage"],
            ]))
        }
    }

    @Test(arguments: [TestTransport.inMemory, .overTheWire])
    func increaseFollowsTheSeedSequenceWithConsecutiveVersions(transport: TestTransport) async throws {
        try await withHub(transport: transport) { _, server in
            let client = try await server.connect()
            let snapshot = try await client.join("counter/seq")
            #expect(snapshot["version"] == 0)
            #expect(snapshot["ref"] == 1)
            #expect(snapshot["state"] == .object(["value": 0, "isLoading": false]))
            let epoch = try #require(snapshot["epoch"]?.stringValue)
            #expect(!epoch.isEmpty)

            try await client.send(#"{"type":"action","reactor":"counter/seq","action":"increase","ref":"a"}"#)
            #expect(try await client.nextText() == #"{"type":"ack","reactor":"counter/seq","ref":"a","version":0,"applied":1}"#)
            #expect(try await client.nextText()
                == #"{"type":"patch","reactor":"counter/seq","version":1,"patch":[{"op":"replace","path":"/isLoading","value":true}]}"#)
            #expect(try await client.nextText()
                == #"{"type":"patch","reactor":"counter/seq","version":2,"patch":[{"op":"replace","path":"/value","value":1}]}"#)
            #expect(try await client.nextText()
                == #"{"type":"patch","reactor":"counter/seq","version":3,"patch":[{"op":"replace","path":"/isLoading","value":false}]}"#)
            #expect(try await client.nextText()
                == #"{"type":"pulse","reactor":"counter/seq","version":3,"name":"alertMessage","value":"increased!"}"#)
            await client.expectSilence()
        }
    }

    @Test func actionWithoutRefIsNotAcked() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            try await client.join("counter/noref")
            try await client.send(#"{"type":"action","reactor":"counter/noref","action":{"type":"decrease"}}"#)
            let first = try await client.next()
            #expect(first["type"] == "patch")
            #expect(first["version"] == 1)
        }
    }

    @Test func twoOverlappingIncreasesMergeToTwoWithTwoPulses() async throws {
        try await withHub(counterDelay: .milliseconds(150)) { _, server in
            let client = try await server.connect()
            try await client.join("counter/overlap")
            try await client.send(#"{"type":"action","reactor":"counter/overlap","action":"increase","ref":1}"#)
            try await client.send(#"{"type":"action","reactor":"counter/overlap","action":"increase","ref":2}"#)
            // The second setLoading(true) and the second setLoading(false) change nothing,
            // so they send no patch; the second ack reports the version it was accepted at.
            let expected = [
                #"{"type":"patch","reactor":"counter/overlap","version":1,"patch":[{"op":"replace","path":"/isLoading","value":true}]}"#,
                #"{"type":"patch","reactor":"counter/overlap","version":2,"patch":[{"op":"replace","path":"/value","value":1}]}"#,
                #"{"type":"patch","reactor":"counter/overlap","version":3,"patch":[{"op":"replace","path":"/isLoading","value":false}]}"#,
                #"{"type":"pulse","reactor":"counter/overlap","version":3,"name":"alertMessage","value":"increased!"}"#,
                #"{"type":"patch","reactor":"counter/overlap","version":4,"patch":[{"op":"replace","path":"/value","value":2}]}"#,
                #"{"type":"pulse","reactor":"counter/overlap","version":4,"name":"alertMessage","value":"increased!"}"#,
            ]
            let firstAck = #"{"type":"ack","reactor":"counter/overlap","ref":1,"version":0,"applied":1}"#
            let secondAck = #"{"type":"ack","reactor":"counter/overlap","ref":2,"version":1,"applied":1}"#
            var received: [String] = []
            for _ in 0..<(expected.count + 2) {
                received.append(try await client.nextText())
            }
            #expect(received.filter { !$0.contains(#""type":"ack""#) } == expected)
            // Each ack comes before any patch its action causes: the first before version 1,
            // the second (accepted at version 1) before version 4, its own increase.
            let firstIndex = try #require(received.firstIndex(of: firstAck))
            let secondIndex = try #require(received.firstIndex(of: secondAck))
            #expect(firstIndex < received.firstIndex(of: expected[0])!)
            #expect(secondIndex < received.firstIndex(of: expected[4])!)
            #expect(firstIndex < secondIndex)
            await client.expectSilence()
        }
    }

    @Test func lateJoinerGetsCurrentStateButNoOldPulse() async throws {
        try await withHub(counterDelay: .milliseconds(10)) { _, server in
            let first = try await server.connect()
            try await first.join("counter/late")
            try await first.send(#"{"type":"action","reactor":"counter/late","action":"increase"}"#)
            for _ in 0..<4 { _ = try await first.next() }  // 3 patches + the pulse
            let late = try await server.connect()
            let snapshot = try await late.join("counter/late")
            #expect(snapshot["version"] == 3)
            #expect(snapshot["state"] == .object(["value": 1, "isLoading": false]))
            await late.expectSilence()
        }
    }

    @Test func twentyClientsSeeIdenticalFrames() async throws {
        try await withHub(counterDelay: .milliseconds(5)) { _, server in
            var clients: [ProtocolClient] = []
            for _ in 0..<20 {
                let client = try await server.connect()
                try await client.join("counter/crowd")
                clients.append(client)
            }
            for index in 0..<5 {
                let sender = clients[index * 3]
                try await sender.send(#"{"type":"action","reactor":"counter/crowd","action":"\#(index % 2 == 0 ? "increase" : "decrease")"}"#)
            }
            // Every client reads at once. Each action: up to 3 patches and exactly one pulse.
            let transcripts = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask {
                        var frames: [String] = []
                        var pulses = 0
                        while pulses < 5 {
                            let text = try await client.nextText()
                            frames.append(text)
                            if text.contains(#""type":"pulse""#) { pulses += 1 }
                        }
                        return (index, frames)
                    }
                }
                var byClient: [[String]] = Array(repeating: [], count: clients.count)
                for try await (index, frames) in group { byClient[index] = frames }
                return byClient
            }
            // The same bytes for everyone: every pulse frame, and the operations of every
            // patch in order. (A client that fell behind may get some patches merged into
            // one frame with `base`; the operations it applies are the same ones.)
            func digest(_ frames: [String]) throws -> (pulses: [String], operations: [JSONValue], version: Int) {
                var operations: [JSONValue] = []
                var version = 0
                for frame in frames where frame.contains(#""type":"patch""#) {
                    let patch = try JSONParser().parse(frame)
                    #expect((patch["base"]?.intValue ?? patch["version"]!.intValue! - 1) == version)
                    version = patch["version"]!.intValue!
                    operations += patch["patch"]?.arrayValue ?? []
                }
                return (frames.filter { $0.contains(#""type":"pulse""#) }, operations, version)
            }
            let digests = try transcripts.map(digest)
            #expect(digests.allSatisfy { $0.pulses == digests[0].pulses && $0.operations == digests[0].operations })
            #expect(digests.allSatisfy { $0.version == digests[0].version })
            #expect(digests[0].pulses.count == 5)
            #expect(digests[0].version >= 5)
        }
    }

    @Test func rejoiningAnswersAFreshSnapshotAndLeaveAnswersLeft() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            try await client.join("counter/rejoin", ref: 1)
            let again = try await client.join("counter/rejoin", ref: 2)
            #expect(again["ref"] == 2)
            #expect(again["version"] == 0)
            try await client.send(#"{"type":"leave","reactor":"counter/rejoin","ref":3}"#)
            #expect(try await client.nextText() == #"{"type":"left","reactor":"counter/rejoin","ref":3}"#)
            try await client.send(#"{"type":"action","reactor":"counter/rejoin","action":"increase","ref":4}"#)
            let refused = try await client.next()
            #expect(refused["code"] == "not_joined")
            #expect(refused["ref"] == 4)
        }
    }
}
