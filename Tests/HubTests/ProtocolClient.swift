import JSON
import TestSupport
import Testing

/// A protocol v1 client over the raw test socket: sends JSON text, parses what arrives.
final class ProtocolClient: Sendable {
    let socket: WebSocketTestClient
    /// The `hello` the server sent first.
    let hello: JSONValue

    private init(socket: WebSocketTestClient, hello: JSONValue) {
        self.socket = socket
        self.hello = hello
    }

    /// Connects and reads `hello`.
    static func connect(port: Int) async throws -> ProtocolClient {
        let socket = try await WebSocketTestClient.connect(port: port, subprotocols: ["reactorhub.v1"])
        let hello = try JSONParser().parse(try await socket.receiveText())
        return ProtocolClient(socket: socket, hello: hello)
    }

    var session: String { hello["session"]?.stringValue ?? "" }

    func send(_ text: String) async throws {
        try await socket.send(text)
    }

    /// The next message, parsed.
    func next(timeout: Double = 5) async throws -> JSONValue {
        try JSONParser().parse(try await socket.receiveText(timeout: timeout))
    }

    /// The next message's raw text.
    func nextText(timeout: Double = 5) async throws -> String {
        try await socket.receiveText(timeout: timeout)
    }

    /// Asserts that nothing arrives within `seconds`.
    func expectSilence(for seconds: Double = 0.3, sourceLocation: SourceLocation = #_sourceLocation) async {
        if let text = try? await socket.receiveText(timeout: seconds) {
            Issue.record("expected no message, got \(text)", sourceLocation: sourceLocation)
        }
    }

    /// Joins `address` and returns the snapshot.
    @discardableResult
    func join(_ address: String, ref: Int = 1) async throws -> JSONValue {
        try await send(#"{"type":"join","reactor":"\#(address)","ref":\#(ref)}"#)
        let reply = try await next()
        #expect(reply["type"] == "snapshot", "join answered \(reply)")
        return reply
    }

    /// Sends `ping` and expects the matching `pong`, skipping nothing.
    func pingPong(ref: String = "p", sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await send(#"{"type":"ping","ref":"\#(ref)"}"#)
        let reply = try await next()
        #expect(reply == .object(["type": "pong", "ref": .string(ref)]), sourceLocation: sourceLocation)
    }
}
