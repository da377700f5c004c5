import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLocking
import ReactorHubKinds
import TestSupport
import Testing

@Suite("Graceful shutdown")
struct ShutdownTests {
    /// An effect is still running when the shutdown starts: new actions are refused with
    /// `overloaded`, the running effect finishes and its patch is delivered, then 1001.
    @Test func shutdownDeliversAckedActionsPatchesThenCloses1001() async throws {
        let gate = Latch()
        let registry = ReactorRegistry()
        registry.register("gated") { GatedReactor(gate: gate) }
        let transport = InMemoryTransport()
        let hub = Hub(configuration: HubConfiguration(), registry: registry, transport: transport, logger: testLogger)
        try hub.start()
        let client = try await ProtocolClient(connection: transport.connect())
        try await client.join("gated/bye")
        try await client.send(#"{"type":"action","reactor":"gated/bye","action":"start","ref":1}"#)
        #expect(try await client.next()["type"] == "ack")
        #expect(try await client.next()["version"] == 1)
        async let stopped: Void = hub.shutdown(grace: .seconds(30))
        while transport.isAccepting {
            await Task.yield()
        }
        try await client.send(#"{"type":"action","reactor":"gated/bye","action":"start","ref":2}"#)
        let refusal = try await client.next()
        #expect(refusal["code"] == "overloaded" && refusal["ref"] == 2)
        gate.open()
        let patch = try await client.next()
        #expect(patch["version"] == 2)
        #expect(patch["patch"] == .array([.object(["op": "replace", "path": "/phase", "value": "finished"])]))
        #expect(try await client.closeCode() == 1001)
        await stopped
    }

    @Test func overTheWireShutdownClosesEveryClientWith1001() async throws {
        try await withHub(transport: .overTheWire) { hub, server in
            let clients = try await (0..<3).asyncMap { _ in try await server.connect() }
            for client in clients {
                try await client.join("counter/wire")
            }
            await hub.shutdown(grace: .seconds(2))
            for client in clients {
                #expect(try await client.closeCode() == 1001)
            }
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self {
            results.append(try await transform(element))
        }
        return results
    }
}
