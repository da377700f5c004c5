import ReactorHubJSON
import TestSupport
import Testing

/// A protocol v1 client over a `TextConnection` (in memory or a real socket): sends JSON
/// text, parses what arrives.
final class ProtocolClient: Sendable {
    let connection: any TextConnection
    /// The `hello` the server sent first.
    let hello: JSONValue

    init(connection: any TextConnection) async throws {
        self.connection = connection
        self.hello = try JSONParser().parse(try await connection.receiveText(timeout: 10))
    }

    var session: String { hello["session"]?.stringValue ?? "" }

    func send(_ text: String) async throws {
        try await connection.sendText(text)
    }

    /// The next message, parsed.
    func next(timeout: Double = 30) async throws -> JSONValue {
        try JSONParser().parse(try await connection.receiveText(timeout: timeout))
    }

    /// The next message's raw text.
    func nextText(timeout: Double = 30) async throws -> String {
        try await connection.receiveText(timeout: timeout)
    }

    /// The close status the server sent.
    func closeCode(timeout: Double = 30) async throws -> UInt16? {
        try await connection.receiveCloseCode(timeout: timeout)
    }

    /// Drops the connection without a close.
    func abort() async {
        await connection.abort()
    }

    /// Asserts that nothing arrives within `seconds`.
    func expectSilence(for seconds: Double = 0.3, sourceLocation: SourceLocation = #_sourceLocation) async {
        if let text = try? await connection.receiveText(timeout: seconds) {
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
