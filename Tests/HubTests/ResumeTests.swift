import ReactorHubEngine
import ReactorHubJSON
import TestSupport
import Testing

@Suite("Resume with since")
struct ResumeTests {
    /// Makes `count` changes on `address` through a second client and waits for them.
    func change(_ address: String, count: Int, server: TestServer) async throws {
        let other = try await server.connect()
        try await other.join(address)
        for _ in 0..<count {
            try await other.send(#"{"type":"action","reactor":"\#(address)","action":"increase"}"#)
            for _ in 0..<4 { _ = try await other.next() }
        }
    }

    @Test(arguments: [TestTransport.inMemory, .overTheWire])
    func resumeSendsResumedThenExactlyTheMissedPatches(transport: TestTransport) async throws {
        try await withHub(counterDelay: .milliseconds(1), transport: transport) { _, server in
            let client = try await server.connect()
            let snapshot = try await client.join("counter/resume")
            let epoch = try #require(snapshot["epoch"]?.stringValue)
            await client.abort()

            try await change("counter/resume", count: 2, server: server)  // versions 1...6

            let back = try await server.connect()
            try await back.send(#"{"type":"join","reactor":"counter/resume","ref":"r","since":{"epoch":"\#(epoch)","version":0}}"#)
            #expect(try await back.nextText() == #"{"type":"resumed","reactor":"counter/resume","ref":"r","epoch":"\#(epoch)","version":0,"presence":{}}"#)
            var state: JSONValue = .object(["value": 0, "isLoading": false])
            for version in 1...6 {
                let patch = try await back.next()
                #expect(patch["type"] == "patch")
                #expect(patch["version"]?.intValue == version)
                state = try JSONPatch.apply(try #require(patch["patch"]), to: state)
            }
            #expect(state == .object(["value": 2, "isLoading": false]))
            await back.expectSilence()
        }
    }

    @Test func resumeAtTheCurrentVersionSendsNoPatch() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            let snapshot = try await client.join("counter/same")
            let epoch = try #require(snapshot["epoch"]?.stringValue)
            let back = try await server.connect()
            try await back.send(#"{"type":"join","reactor":"counter/same","since":{"epoch":"\#(epoch)","version":0}}"#)
            let reply = try await back.next()
            #expect(reply["type"] == "resumed")
            #expect(reply["version"] == 0)
            await back.expectSilence()
        }
    }

    @Test func wrongEpochGetsASnapshot() async throws {
        try await withHub(counterDelay: .milliseconds(1)) { _, server in
            try await change("counter/epoch", count: 1, server: server)
            let back = try await server.connect()
            try await back.send(#"{"type":"join","reactor":"counter/epoch","since":{"epoch":"not-it","version":1}}"#)
            let reply = try await back.next()
            #expect(reply["type"] == "snapshot")
            #expect(reply["version"] == 3)
            #expect(reply["state"] == .object(["value": 1, "isLoading": false]))
        }
    }

    @Test func versionAheadOfTheServerGetsASnapshot() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            let epoch = try #require(try await client.join("counter/ahead")["epoch"]?.stringValue)
            try await client.send(#"{"type":"join","reactor":"counter/ahead","since":{"epoch":"\#(epoch)","version":99}}"#)
            #expect(try await client.next()["type"] == "snapshot")
        }
    }

    @Test func versionOlderThanTheHistoryGetsASnapshot() async throws {
        try await withHub(counterDelay: .milliseconds(1), configure: { $0.historyPatches = 4 }) { _, server in
            let client = try await server.connect()
            let epoch = try #require(try await client.join("counter/old")["epoch"]?.stringValue)
            await client.abort()
            try await change("counter/old", count: 2, server: server)  // 6 versions, 4 kept
            let stale = try await server.connect()
            try await stale.send(#"{"type":"join","reactor":"counter/old","since":{"epoch":"\#(epoch)","version":1}}"#)
            let reply = try await stale.next()
            #expect(reply["type"] == "snapshot")
            #expect(reply["version"] == 6)
            let recent = try await server.connect()
            try await recent.send(#"{"type":"join","reactor":"counter/old","since":{"epoch":"\#(epoch)","version":2}}"#)
            let resumed = try await recent.next()
            #expect(resumed["type"] == "resumed")
            #expect(resumed["version"] == 2)
            for version in 3...6 {
                #expect(try await recent.next()["version"]?.intValue == version)
            }
        }
    }
}
