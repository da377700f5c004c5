import ReactorHubWebSocketServer

/// A client connection that sends and receives text messages, over a real socket
/// (`WebSocketTestClient`) or in memory (`InMemoryClient`), so that protocol tests read
/// the same either way.
public protocol TextConnection: Sendable {
    /// Sends one text message.
    func sendText(_ text: String) async throws
    /// The next text message, or an error after `timeout` seconds.
    func receiveText(timeout: Double) async throws -> String
    /// The close status the server sent (nil when it sent none).
    func receiveCloseCode(timeout: Double) async throws -> UInt16?
    /// Drops the connection without a close frame (1006 on the server).
    func abort() async
}

extension WebSocketTestClient: TextConnection {
    public func sendText(_ text: String) async throws {
        try await send(text)
    }

    public func receiveCloseCode(timeout: Double) async throws -> UInt16? {
        try await receiveClose(timeout: timeout).code
    }
}

extension InMemoryClient: TextConnection {
    public func sendText(_ text: String) async throws {
        send(text)
    }

    public func receiveText(timeout: Double) async throws -> String {
        try await receive(timeout: .milliseconds(Int(timeout * 1000)))
    }

    public func receiveCloseCode(timeout: Double) async throws -> UInt16? {
        try await receiveClose(timeout: .milliseconds(Int(timeout * 1000))).code.rawValue
    }

    public func abort() async {
        close(code: .abnormal, reason: "connection lost")
    }
}
