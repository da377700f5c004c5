@testable import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLocking
import ReactorHubProtocol
import TestSupport
import Testing

/// What the engine tells an `InstanceEventSink` (the seam webhooks hear through, API.md
/// "Webhooks"), and the HTTP side of backpressure.
@Suite("Instance events and HTTP backpressure")
struct InstanceEventTests {
    /// Records every event it wants, in order; wants only `kinds`.
    final class RecordingSink: InstanceEventSink {
        let kinds: Set<InstanceEvent.Kind>
        let events = Locked<[InstanceEvent]>([])
        let arrived = AsyncStream<Void>.makeStream()

        init(_ kinds: Set<InstanceEvent.Kind> = Set(InstanceEvent.Kind.allCases)) {
            self.kinds = kinds
        }

        func wants(_ kind: InstanceEvent.Kind, in address: ReactorAddress) -> Bool { kinds.contains(kind) }

        func emit(_ event: InstanceEvent) {
            #expect(kinds.contains(event.kind), "an event nobody wanted was built")
            events.withLock { $0.append(event) }
            arrived.continuation.yield()
        }

        /// Waits until `count` events have come; returns them.
        func waitFor(_ count: Int) async -> [InstanceEvent] {
            var iterator = arrived.stream.makeAsyncIterator()
            while events.withLock({ $0.count }) < count {
                _ = await iterator.next()
            }
            return events.withLock { $0 }
        }
    }

    @Test func createdThenActionThenPulseFromTheOwnerInOrder() async throws {
        let sink = RecordingSink()
        try await withHub(configure: { $0.events = sink }) { _, server in
            let client = try await server.connect()
            let snapshot = try await client.join("counter/told")
            let epoch = try #require(snapshot["epoch"]?.stringValue)
            try await client.send(#"{"type":"action","reactor":"counter/told","action":"increase","ref":1}"#)
            let events = await sink.waitFor(3)
            let address = try #require(ReactorAddress("counter/told"))
            #expect(events == [
                .created(address, epoch: epoch, version: 0),
                .action(address, user: nil, action: ["type": "increase"], version: 0, applied: 1),
                .pulse(address, version: 3, name: "alertMessage", value: "increased!"),
            ])
        }
    }

    @Test func anHTTPActionIsToldWithItsObjectForm() async throws {
        let sink = RecordingSink([.action])
        try await withHub(configure: { $0.events = sink }) { hub, _ in
            let response = await HTTPAPITests.post(hub, "/api/v1/reactors/doc/told/actions", #"{"action":{"type":"set","path":"/a","value":[1]}}"#)
            #expect(response.status == 200)
            let events = await sink.waitFor(1)
            let address = try #require(ReactorAddress("doc/told"))
            #expect(events == [.action(address, user: nil, action: ["type": "set", "path": "/a", "value": [1]], version: 0, applied: 1)])
        }
    }

    @Test func anEvictedInstanceIsTold() async throws {
        let sink = RecordingSink([.created, .evicted])
        try await withHub(configure: { $0.events = sink }) { hub, _ in
            let read = await HTTPAPITests.answer(hub, HTTPRequest(method: "GET", path: "/api/v1/reactors/doc/passing"))
            #expect(read.status == 200)
            _ = await sink.waitFor(1)
            await hub.evictIdleInstances(now: .now, idleFor: .zero)
            let events = await sink.waitFor(2)
            #expect(events.map(\.kind) == [.created, .evicted])
            #expect(events.map(\.address.description) == ["doc/passing", "doc/passing"])
            #expect(hub.residentInstances == [])
        }
    }

    @Test func aBareActionNameIsToldAsAnObject() {
        #expect(JSONValue.string("increase").actionObjectForm == ["type": "increase"])
        #expect(JSONValue.object(["type": "add", "title": "x"]).actionObjectForm == ["type": "add", "title": "x"])
    }

    @Test func anInstancePastItsBoundRefusesHTTPActionsUntilItDrainsToHalf() {
        let load = ActionLoad(perInstance: 4, total: 100, transport: InMemoryTransport())
        let stream = StreamID(rawValue: 1)
        let other = StreamID(rawValue: 2)
        let sender = ConnectionID(rawValue: 7)
        for pending in 1...4 { load.queued(from: sender, on: stream, instancePending: pending) }
        #expect(!load.refuses(stream))
        load.queued(from: sender, on: stream, instancePending: 5)
        #expect(load.refuses(stream))
        #expect(!load.refuses(other))
        for _ in 1...2 { load.taken() }
        load.drained(stream, instancePending: 3)
        #expect(load.refuses(stream))
        load.drained(stream, instancePending: 2)
        #expect(!load.refuses(stream))
    }

    @Test func allInstancesPastTheTotalRefuseEveryHTTPAction() {
        let load = ActionLoad(perInstance: 100, total: 2, transport: InMemoryTransport())
        let sender = ConnectionID(rawValue: 7)
        for (index, pending) in [1, 1, 1].enumerated() {
            load.queued(from: sender, on: StreamID(rawValue: UInt64(index)), instancePending: pending)
        }
        #expect(load.refuses(StreamID(rawValue: 99)))
        for _ in 1...3 { load.taken() }
        #expect(!load.refuses(StreamID(rawValue: 99)))
    }
}
