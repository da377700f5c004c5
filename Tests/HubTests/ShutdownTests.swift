import Hub
import JSON
import Reactors
import TestSupport
import Testing

@Suite("Graceful shutdown")
struct ShutdownTests {
    @Test func shutdownDeliversAckedActionsPatchesThenCloses1001() async throws {
        let registry = ReactorRegistry()
        registry.register("counter") { CounterReactor(delay: .milliseconds(300)) }
        let transport = InMemoryTransport()
        let hub = Hub(configuration: HubConfiguration(), registry: registry, transport: transport, logger: testLogger)
        try hub.start()
        let client = try await ProtocolClient(connection: transport.connect())
        try await client.join("counter/bye")
        try await client.send(#"{"type":"action","reactor":"counter/bye","action":"increase","ref":1}"#)
        #expect(try await client.next()["type"] == "ack")
        #expect(try await client.next()["version"] == 1)
        // The increase is still waiting for its delay when the shutdown starts.
        async let stopped: Void = hub.shutdown(grace: .seconds(5))
        while transport.isAccepting {
            await Task.yield()
        }
        try await client.send(#"{"type":"action","reactor":"counter/bye","action":"increase","ref":2}"#)
        // The refusal of the late action, and the first action's remaining patches and
        // pulse in their order (the refusal may come before or among them).
        var rest: [JSONValue] = []
        while rest.last?["type"] != "pulse" {
            rest.append(try await client.next())
        }
        let refusals = rest.filter { $0["type"] == "error" }
        #expect(refusals.map { $0["code"] } == ["overloaded"])
        #expect(refusals.first?["ref"] == 2)
        #expect(rest.filter { $0["type"] == "patch" }.map { $0["version"] } == [2, 3])
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
