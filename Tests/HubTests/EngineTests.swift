@testable import ReactorHubRedis
@testable import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLocking
import ReactorHubProtocol
import ReactorHubStore
import TestSupport
import Testing

/// The one instance engine, on both of its logs: every test runs on a single node (the
/// in-process log), a cluster of one and a cluster of three (the Redis log), with the same
/// assertions, so that the two cannot drift apart again. In a cluster of three the writer
/// is on the first node and the reader on the last, which never owned the instance.
@Suite("One engine on both logs", .serialized)
struct EngineTests {
    private func set(_ address: String, _ path: String, _ value: String, ref: String, id: String? = nil) -> String {
        let idMember = id.map { #","id":"\#($0)""# } ?? ""
        return #"{"type":"action","reactor":"\#(address)","action":{"type":"set","path":"\#(path)","value":\#(value)},"ref":"\#(ref)"\#(idMember)}"#
    }

    /// The next message of one of `types`, skipping the others (patches, pulses, presence).
    private func next(_ client: ProtocolClient, _ types: String...) async throws -> String {
        while true {
            let text = try await client.nextText(timeout: 60)
            if types.contains(where: { text.hasPrefix(#"{"type":"\#($0)""#) }) { return text }
        }
    }

    /// The next reply (`ack` or `error`).
    private func reply(_ client: ProtocolClient) async throws -> String {
        try await next(client, "ack", "error")
    }

    @Test(arguments: EngineMode.all)
    func numbersAreComparedAsTheirTextSoOneToOnePointZeroIsAChange(mode: EngineMode) async throws {
        try await withEngine(mode) { engine in
            let writer = try await engine.connect()
            let reader = try await engine.connect(node: engine.lastNode)
            try await writer.join("doc/n")
            try await reader.join("doc/n")
            try await writer.send(set("doc/n", "/n", "1", ref: "a"))
            #expect(try await reply(writer) == #"{"type":"ack","reactor":"doc/n","ref":"a","version":0,"applied":1}"#)
            #expect(try await next(reader, "patch") == #"{"type":"patch","reactor":"doc/n","version":1,"patch":[{"op":"add","path":"/n","value":1}]}"#)
            try await writer.send(set("doc/n", "/n", "1.0", ref: "b"))
            #expect(try await reply(writer) == #"{"type":"ack","reactor":"doc/n","ref":"b","version":1,"applied":2}"#)
            #expect(try await next(reader, "patch") == #"{"type":"patch","reactor":"doc/n","version":2,"patch":[{"op":"replace","path":"/n","value":1.0}]}"#)
            // The same text again changes nothing: no version, no patch.
            try await writer.send(set("doc/n", "/n", "1.0", ref: "c"))
            #expect(try await reply(writer) == #"{"type":"ack","reactor":"doc/n","ref":"c","version":2,"applied":2}"#)
            await reader.expectSilence()
            let fresh = try await engine.connect(node: engine.lastNode)
            let snapshot = try await fresh.join("doc/n")
            #expect(snapshot["version"] == 2)
            try await fresh.send(#"{"type":"join","reactor":"doc/n","ref":"t"}"#)
            #expect(try await next(fresh, "snapshot").contains(#""state":{"n":1.0}"#))
        }
    }

    @Test(arguments: EngineMode.all)
    func anAckSaysTheVersionBeforeAndTheVersionThatFirstIncludesTheAction(mode: EngineMode) async throws {
        try await withEngine(mode) { engine in
            let client = try await engine.connect(node: engine.lastNode)
            try await client.join("counter/acks")
            // setLoading(true) is immediate; the increase comes after the delay.
            try await client.send(#"{"type":"action","reactor":"counter/acks","action":"increase","ref":1}"#)
            #expect(try await reply(client) == #"{"type":"ack","reactor":"counter/acks","ref":1,"version":0,"applied":1}"#)
            var versions: [Int] = []
            while versions.last != 3 {
                let message = try JSONParser().parse(try await next(client, "patch"))
                versions.append(try #require(message["version"]?.intValue))
            }
            #expect(versions == [1, 2, 3])
            #expect(try await next(client, "pulse").contains(#""version":3,"name":"alertMessage""#))
            // An action that changes nothing at once: applied equals version.
            try await client.join("doc/acks")
            try await client.send(#"{"type":"action","reactor":"doc/acks","action":{"type":"emit","name":"hi"},"ref":2}"#)
            #expect(try await reply(client) == #"{"type":"ack","reactor":"doc/acks","ref":2,"version":0,"applied":0}"#)
            // A refusal carries neither.
            try await client.send(#"{"type":"action","reactor":"doc/acks","action":{"type":"remove","path":"/nope"},"ref":3}"#)
            let refused = try JSONParser().parse(try await reply(client))
            #expect(refused["type"] == "error")
            #expect(refused["version"] == nil && refused["applied"] == nil)
            // Without a ref there is no ack; the patch still comes.
            try await client.send(#"{"type":"action","reactor":"doc/acks","action":{"type":"set","path":"/x","value":1}}"#)
            let patch = try JSONParser().parse(try await next(client, "patch", "ack"))
            #expect(patch["type"] == "patch" && patch["version"] == 1)
        }
    }

    @Test(arguments: EngineMode.all)
    func aResentIDIsAnsweredWithTheSameVersionsAsADuplicateOnAnyNode(mode: EngineMode) async throws {
        try await withEngine(mode) { engine in
            let first = try await engine.connect()
            try await first.join("doc/ids")
            try await first.send(set("doc/ids", "/a", "1", ref: "one", id: "x-1"))
            #expect(try await reply(first) == #"{"type":"ack","reactor":"doc/ids","ref":"one","version":0,"applied":1}"#)
            let other = try await engine.connect(node: engine.lastNode)
            let snapshot = try await other.join("doc/ids")
            #expect(snapshot["version"] == 1)
            try await other.send(set("doc/ids", "/a", "2", ref: "two", id: "x-1"))
            #expect(try await reply(other) == #"{"type":"ack","reactor":"doc/ids","ref":"two","version":0,"applied":1,"duplicate":true}"#)
            await other.expectSilence()
            #expect(try await other.join("doc/ids", ref: 3)["state"] == .object(["a": 1]))
        }
    }

    @Test(arguments: EngineMode.all)
    func everySnapshotAndResumedCarriesPresenceEvenWhenEmpty(mode: EngineMode) async throws {
        try await withEngine(mode) { engine in
            let ann = try await engine.connect()
            let snapshot = try await ann.join("doc/room")
            #expect(snapshot["presence"] == .object([:]))
            let epoch = try #require(snapshot["epoch"]?.stringValue)
            let bob = try await engine.connect(node: engine.lastNode)
            try await bob.send(#"{"type":"join","reactor":"doc/room","ref":"r","since":{"epoch":"\#(epoch)","version":0}}"#)
            #expect(try await next(bob, "resumed", "snapshot") == #"{"type":"resumed","reactor":"doc/room","ref":"r","epoch":"\#(epoch)","version":0,"presence":{}}"#)
            try await ann.send(#"{"type":"presence","reactor":"doc/room","state":{"cursor":1},"ref":"p"}"#)
            #expect(try await reply(ann) == #"{"type":"ack","reactor":"doc/room","ref":"p","version":0,"applied":0}"#)
            let entry: JSONValue = .object([.init(ann.session): .object(["user": .null, "state": .object(["cursor": 1])])])
            var broadcast = JSONValue.null
            while broadcast["type"] != "presence" { broadcast = try await bob.next(timeout: 60) }
            #expect(broadcast["joins"] == entry)
            let carol = try await engine.connect(node: engine.lastNode)
            #expect(try await carol.join("doc/room")["presence"] == entry)
        }
    }

    @Test(arguments: EngineMode.all)
    func historyKeepsItsCountAndByteBoundsOnEveryNode(mode: EngineMode) async throws {
        try await withEngine(mode, configure: {
            $0.historyPatches = 10
            $0.historyBytes = 1000
        }) { engine in
            let writer = try await engine.connect()
            let epoch = try #require(try await writer.join("doc/history")["epoch"]?.stringValue)
            let value = "\"" + String(repeating: "v", count: 60) + "\""
            for n in 1...12 {
                try await writer.send(set("doc/history", "/k", value.replacingOccurrences(of: "v\"", with: "\(n % 10)\""), ref: "s\(n)"))
                while try await writer.next(timeout: 60)["type"] != "patch" {}
            }
            // Each frame takes about 160 bytes: 1000 bytes hold six of them, fewer than the
            // ten versions `history.patches` allows.
            let near = try await engine.connect(node: engine.lastNode)
            try await near.send(#"{"type":"join","reactor":"doc/history","ref":"near","since":{"epoch":"\#(epoch)","version":8}}"#)
            let resumed = try await near.next(timeout: 60)
            #expect(resumed["type"] == "resumed")
            var versions: [Int] = []
            for _ in 9...12 { versions.append(try #require(try await near.next(timeout: 60)["version"]?.intValue)) }
            #expect(versions == Array(9...12))
            let far = try await engine.connect(node: engine.lastNode)
            try await far.send(#"{"type":"join","reactor":"doc/history","ref":"far","since":{"epoch":"\#(epoch)","version":4}}"#)
            let answer = try await far.next(timeout: 60)
            #expect(answer["type"] == "snapshot")
            #expect(answer["version"] == 12)
            let inspection = try #require(engine.hubs[engine.lastNode].instance(of: "doc/history")).inspect(history: 100)
            #expect(inspection.history.count < 10)
            #expect(inspection.history.reduce(0) { $0 + $1.message.count } <= 1000)
            #expect(inspection.history.last?.version == 12)
        }
    }

    @Test(arguments: EngineMode.all)
    func aReaderThatStopsReadingConvergesThroughMergedPatchesOrASnapshot(mode: EngineMode) async throws {
        try await withEngine(mode, configure: { $0.outboundQueueBytes = 16 * 1024 }) { engine in
            let writer = try await engine.connect()
            let raw = try await engine.rawClient(node: engine.lastNode)
            let reader = try await ProtocolClient(connection: raw)
            try await writer.join("doc/slow")
            try await reader.join("doc/slow")
            raw.pauseReading(socketCapacity: 2048)
            let count = 300
            for n in 1...count {
                try await writer.send(set("doc/slow", "/k\(n % 30)", "\"\(String(repeating: "v", count: 60))\(n)\"", ref: "\(n)"))
            }
            var last = 0
            while last < count {
                let message = try await writer.next(timeout: 60)
                if message["type"] == "patch" { last = try #require(message["version"]?.intValue) }
            }
            raw.resumeReading()
            var state: JSONValue = .object([:])
            var version = 0
            while version < count {
                let message = try await reader.next(timeout: 60)
                switch message["type"]?.stringValue {
                case "snapshot":
                    state = try #require(message["state"])
                    version = try #require(message["version"]?.intValue)
                case "patch":
                    let next = try #require(message["version"]?.intValue)
                    #expect((message["base"]?.intValue ?? next - 1) == version)
                    state = try JSONPatch.apply(try #require(message["patch"]), to: state)
                    version = try #require(message["version"]?.intValue)
                default:
                    break
                }
            }
            let fresh = try await writer.join("doc/slow", ref: 2)
            #expect(fresh["version"] == .int(count))
            #expect(state == fresh["state"])
        }
    }

    @Test(arguments: EngineMode.all)
    func anAckRevealsOnlyAVersionTheLogHasCommitted(mode: EngineMode) async throws {
        let store = HeldDurabilityStore()
        try await withEngine(mode, store: store, configure: { $0.durableAcks = true }) { engine in
            let client = try await engine.connect(node: engine.lastNode)
            try await client.join("doc/durable")
            try await client.send(set("doc/durable", "/a", "1", ref: "d"))
            if case .singleNode = mode {
                // The in-process log commits once the store has the version on disk.
                await client.expectSilence()
                store.release()
            }
            #expect(try await reply(client) == #"{"type":"ack","reactor":"doc/durable","ref":"d","version":0,"applied":1}"#)
            if let cluster = engine.clusters.first {
                let stored = try #require(try await cluster.store.load("doc/durable"))
                #expect(stored.version >= 1)
            }
            #expect(try await client.next(timeout: 60)["version"] == 1)
        }
    }
}

/// A memory store whose durability is held until `release()`: what the durable-ack rule
/// waits for.
final class HeldDurabilityStore: StateStore {
    private let memory = MemoryStateStore()
    private let held = Locked<(released: Bool, waiting: [@Sendable () -> Void])>((false, []))

    func load(_ address: ReactorAddress) throws -> StoredInstance? { try memory.load(address) }
    func record(_ change: StoredChange) { memory.record(change) }
    func setAside(_ address: ReactorAddress, reason: String) { memory.setAside(address, reason: reason) }
    func flush() async {}

    func whenDurable(_ address: ReactorAddress, version: Int, _ body: @escaping @Sendable () -> Void) {
        let now = held.withLock { held -> Bool in
            if held.released { return true }
            held.waiting.append(body)
            return false
        }
        if now { body() }
    }

    /// Makes everything recorded durable, now and from now on.
    func release() {
        let waiting = held.withLock { held in
            held.released = true
            defer { held.waiting = [] }
            return held.waiting
        }
        for body in waiting { body() }
    }
}
