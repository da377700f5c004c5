public import ReactorHubProtocol
/// Identifies one connection of a `WebSocketClient`; never reused by that client.
public struct ClientConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The number behind the identifier, increasing in the order connections were asked for.
    public let rawValue: UInt64

    /// Wraps a raw number.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public var description: String { "w\(rawValue)" }
}

/// Receives the events of one client connection, in order, on the client's service
/// thread: `opened` then messages then `closed`, or `failed` alone when it never opened.
/// Implementations must return quickly and never block: the thread serves every
/// connection of the client.
public protocol WebSocketClientDelegate: AnyObject, Sendable {
    /// The upgrade succeeded; `subprotocol` is the one the server selected, if any.
    func webSocketOpened(_ id: ClientConnectionID, subprotocol: String?)
    /// A whole text message arrived (fragments reassembled).
    func webSocket(_ id: ClientConnectionID, received message: [UInt8])
    /// The open connection is gone; `code` is the close status sent or received, 1006
    /// when the server vanished without a close frame.
    func webSocketClosed(_ id: ClientConnectionID, code: CloseCode, reason: String)
    /// The connection never opened.
    func webSocketFailed(_ id: ClientConnectionID, error: WebSocketClientError)
}
