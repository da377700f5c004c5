@testable import ReactorHubEngine
import ReactorHubJSON
import ReactorHubMetrics
import ReactorHubStore
import TestSupport
import Testing

/// The limits one client must not be able to take from everyone (issue 30): joins per
/// second, instances per user, the memory budget, and memory handed back at eviction.
@Suite("Quotas one client cannot exceed")
struct QuotaTests {
    @Test func joinsPastTheBurstAreRateLimitedAndNameTheKey() async throws {
        try await withHub(configure: {
            $0.joinsPerSecond = 1
            $0.joinBurst = 3
        }) { _, server in
            let client = try await server.connect()
            let started = ContinuousClock.now
            for n in 1...10 {
                try await client.send(#"{"type":"join","reactor":"doc/j\#(n)","ref":\#(n)}"#)
            }
            // Refusals are answered at once, snapshots once their instance is loaded: by ref.
            var byRef: [Int: String] = [:]
            var refusal = ""
            for _ in 1...10 {
                let message = try await client.next()
                let ref = try #require(message["ref"]?.intValue)
                byRef[ref] = message["type"]?.stringValue == "snapshot" ? "snapshot" : message["code"]?.stringValue ?? "?"
                if message["code"] == "rate_limited" { refusal = message["message"]?.stringValue ?? "" }
            }
            let answers = (1...10).map { byRef[$0] ?? "none" }
            // One token a second comes back: at most that many more joins than the burst.
            let refilled = Int((ContinuousClock.now - started) / .seconds(1)) + 1
            #expect(Array(answers.prefix(3)) == ["snapshot", "snapshot", "snapshot"])
            #expect(answers.filter { $0 == "snapshot" }.count <= 3 + refilled)
            #expect(answers.filter { $0 == "rate_limited" }.count >= 10 - 3 - refilled)
            #expect(Set(answers) == ["snapshot", "rate_limited"])
            #expect(refusal.contains("limits.joinsPerSecond"))
        }
    }

    @Test func aUserMayHoldOnlyItsQuotaOfInstancesItCreated() async throws {
        try await withHub(configure: {
            $0.maxInstancesPerUser = 2
            $0.idleEviction = .milliseconds(200)
        }) { hub, server in
            let ann = try await server.connect()
            try await ann.join("doc/q1")
            try await ann.join("doc/q2")
            try await ann.send(#"{"type":"join","reactor":"doc/q3","ref":"third"}"#)
            let refused = try await ann.next()
            #expect(refused["code"] == "overloaded")
            #expect(refused["message"]?.stringValue?.contains("limits.maxInstancesPerUser") == true)
            #expect(hub.residentInstances == ["doc/q1", "doc/q2"])
            // Another connection of the same (anonymous) address counts against the same quota.
            let again = try await server.connect()
            try await again.send(#"{"type":"join","reactor":"doc/q3","ref":"again"}"#)
            #expect(try await again.next()["code"] == "overloaded")
            // Joining what exists is no creation.
            try await again.join("doc/q1")
            // Once an instance it created is evicted, it may create another.
            try await ann.send(#"{"type":"leave","reactor":"doc/q2","ref":"l"}"#)
            #expect(try await ann.next()["type"] == "left")
            let deadline = ContinuousClock.now + .seconds(30)
            while hub.residentInstances.contains("doc/q2") && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(hub.residentInstances == ["doc/q1"])
            #expect(try await ann.join("doc/q3")["type"] == "snapshot")
        }
    }

    @Test func pastNinetyPercentOfTheMemoryLimitNewInstancesAndActionsAreRefused() async throws {
        try await withHub(configure: { $0.maxMemoryBytes = 1 }) { hub, server in
            let client = try await server.connect()
            try await client.join("doc/before")
            hub.sampleMemory()
            try await client.send(#"{"type":"join","reactor":"doc/new","ref":"j"}"#)
            let join = try await client.next()
            #expect(join["code"] == "overloaded")
            #expect(join["message"]?.stringValue?.contains("limits.maxMemoryBytes") == true)
            try await client.send(#"{"type":"action","reactor":"doc/before","action":{"type":"set","path":"/a","value":1},"ref":"a"}"#)
            let action = try await client.next()
            #expect(action["code"] == "overloaded")
            #expect(action["message"]?.stringValue?.contains("limits.maxMemoryBytes") == true)
            // Joining an instance that exists costs no new instance.
            #expect(try await client.join("doc/before", ref: 2)["type"] == "snapshot")
        }
    }

    @Test func withMemoryPersistenceAnEvictedInstanceIsDroppedAndStartsAfresh() async throws {
        try await withHub(store: MemoryStateStore(dropsEvicted: true), configure: { $0.idleEviction = .milliseconds(200) }) { hub, server in
            let client = try await server.connect()
            let first = try await client.join("doc/gone")
            try await client.send(#"{"type":"action","reactor":"doc/gone","action":{"type":"set","path":"/a","value":1},"ref":"a"}"#)
            #expect(try await client.next()["type"] == "ack")
            #expect(try await client.next()["version"] == 1)
            try await client.send(#"{"type":"leave","reactor":"doc/gone","ref":"l"}"#)
            #expect(try await client.next()["type"] == "left")
            let deadline = ContinuousClock.now + .seconds(30)
            while !hub.residentInstances.isEmpty && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(hub.residentInstances.isEmpty)
            let again = try await client.join("doc/gone", ref: 2)
            #expect(again["version"] == 0)
            #expect(again["state"] == .object([:]))
            #expect(again["epoch"] != first["epoch"])
        }
    }
}
