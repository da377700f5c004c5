import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLocking
import TestSupport
import Testing

@Suite("Idle instances")
struct EvictionTests {
    @Test func idleInstancesAreEvictedAndComeBackWithEpochVersionAndHistory() async throws {
        try await withHub(counterDelay: .milliseconds(1), configure: { $0.idleEviction = .seconds(5) }) { hub, server in  // long enough to look before it passes, on a loaded machine
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
            let deadline = clock.now + .seconds(30)
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
        let gate = Latch()
        let registry = testRegistry()
        registry.register("gated") { GatedReactor(gate: gate) }
        try await withHub(registry: registry, configure: { $0.idleEviction = .milliseconds(100) }) { hub, server in
            let watcher = try await server.connect()
            try await watcher.join("counter/watched")
            let actor = try await server.connect()
            try await actor.join("gated/busy")
            try await actor.send(#"{"type":"action","reactor":"gated/busy","action":"start"}"#)
            #expect(try await actor.next()["version"] == 1)
            try await actor.send(#"{"type":"leave","reactor":"gated/busy","ref":1}"#)
            #expect(try await actor.next()["type"] == "left")
            // A probe left after them: once it is evicted, an eviction pass has weighed the
            // other two as well.
            try await actor.join("counter/probe")
            try await actor.send(#"{"type":"action","reactor":"counter/probe","action":"increase"}"#)
            while try await actor.next()["type"] != "pulse" {}
            try await actor.send(#"{"type":"leave","reactor":"counter/probe","ref":2}"#)
            #expect(try await actor.next()["type"] == "left")
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(30)
            while hub.residentInstances.contains("counter/probe") && clock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            // The start's effect is still running; the watched one has a subscriber.
            #expect(hub.residentInstances == ["counter/watched", "gated/busy"])
            gate.open()
        }
    }
}
