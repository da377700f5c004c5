import Hub
import JSON
import Reactors
import TestSupport
import Testing

@Suite("Graceful shutdown")
struct ShutdownTests {
    @Test func shutdownDeliversAckedActionsPatchesThenCloses1001() async throws {
        var configuration = HubConfiguration()
        configuration.transport.port = 0
        configuration.transport.webRoot = nil
        let registry = ReactorRegistry()
        registry.register("counter") { CounterReactor(delay: .milliseconds(1500)) }
        let hub = Hub(configuration: configuration, registry: registry)
        let port = try hub.start()
        let client = try await ProtocolClient.connect(port: port)
        try await client.join("counter/bye")
        try await client.send(#"{"type":"action","reactor":"counter/bye","action":"increase","ref":1}"#)
        #expect(try await client.next()["type"] == "ack")
        #expect(try await client.next()["version"] == 1)
        // The increase is still waiting for its delay when the shutdown starts.
        async let stopped: Void = hub.shutdown(grace: .seconds(5))
        try await Task.sleep(for: .milliseconds(50))
        let late = try await client.nextIfAny(timeout: 0.1)
        #expect(late == nil)
        try await client.send(#"{"type":"action","reactor":"counter/bye","action":"increase","ref":2}"#)
        #expect(try await client.next()["code"] == "overloaded")
        #expect(try await client.next()["version"] == 2)
        #expect(try await client.next()["version"] == 3)
        #expect(try await client.next()["type"] == "pulse")
        #expect(try await client.socket.receiveClose().code == 1001)
        await stopped
    }
}

extension ProtocolClient {
    func nextIfAny(timeout: Double) async throws -> JSONValue? {
        guard let text = try? await socket.receiveText(timeout: timeout) else { return nil }
        return try JSONParser().parse(text)
    }
}
