import Hub
import JSON
import TestSupport
import Testing

@Suite("Idle instances")
struct EvictionTests {
    @Test func idleInstancesAreEvictedAndComeBackWithEpochVersionAndHistory() async throws {
        try await withHub(counterDelay: .milliseconds(1), configure: { $0.idleEviction = .milliseconds(200) }) { hub, server in
            let client = try await server.connect()
            let snapshot = try await client.join("counter/idle")
            let epoch = try #require(snapshot["epoch"]?.stringValue)
            try await client.send(#"{"type":"action","reactor":"counter/idle","action":"increase"}"#)
            for _ in 0..<4 { _ = try await client.next() }
            try await client.join("counter/never")
            try await client.send(#"{"type":"leave","reactor":"counter/idle"}"#)
            try await client.send(#"{"type":"leave","reactor":"counter/never"}"#)
            _ = try await client.next()
            _ = try await client.next()
            #expect(hub.residentInstances == ["counter/idle", "counter/never"])

            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(5)
            while !hub.residentInstances.isEmpty && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(hub.residentInstances.isEmpty)

            try await client.send(#"{"type":"join","reactor":"counter/idle","since":{"epoch":"\#(epoch)","version":1}}"#)
            let resumed = try await client.next()
            #expect(resumed["type"] == "resumed")
            #expect(resumed["epoch"]?.stringValue == epoch)
            #expect(resumed["version"] == 1)
            #expect(try await client.next()["version"] == 2)
            #expect(try await client.next()["version"] == 3)
            let fresh = try await client.join("counter/idle", ref: 5)
            #expect(fresh["state"] == .object(["value": 1, "isLoading": false]))
            #expect(hub.residentInstances == ["counter/idle"])
        }
    }

    @Test func instancesWithSubscribersOrRunningEffectsStay() async throws {
        try await withHub(counterDelay: .milliseconds(600), configure: { $0.idleEviction = .milliseconds(100) }) { hub, server in
            let watcher = try await server.connect()
            try await watcher.join("counter/watched")
            let actor = try await server.connect()
            try await actor.join("counter/busy")
            try await actor.send(#"{"type":"action","reactor":"counter/busy","action":"increase"}"#)
            _ = try await actor.next()
            try await actor.send(#"{"type":"leave","reactor":"counter/busy"}"#)
            _ = try await actor.next()
            try await Task.sleep(for: .milliseconds(400))
            // The increase's effect is still waiting for its delay; the watched one has a subscriber.
            #expect(hub.residentInstances == ["counter/busy", "counter/watched"])
        }
    }
}
