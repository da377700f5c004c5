/// What the client's frames travel on: something that opens WebSocket connections. The
/// client never sees more of the network than this, so it runs the same on libwebsockets
/// (Linux, `LibWebSocketsClientSocket`), on `URLSessionWebSocketTask` (Apple platforms,
/// `URLSessionClientSocket`) and in memory (tests, benchmarks).
public protocol ClientSocket: Sendable {
    /// Opens a connection and returns once the upgrade succeeded; throws when it failed
    /// (or the calling task was cancelled first).
    func connect(_ request: ClientSocketRequest) async throws(ClientSocketError) -> any ClientSocketConnection
    /// Releases what the socket holds (threads, sessions). Connections still open are dropped.
    func shutdown() async
}

/// One open connection.
public protocol ClientSocketConnection: AnyObject, Sendable {
    /// What arrives, in order: whole text messages, then exactly one `closed`; then the
    /// stream finishes. It buffers everything: the client reads it without pause.
    var events: AsyncStream<ClientSocketEvent> { get }
    /// Queues one text message (UTF-8 JSON); returns at once.
    func send(_ message: [UInt8])
    /// Closes the connection with `code`; `events` reports `closed` at once and finishes.
    func close(code: UInt16, reason: String)
    /// Closes the connection with `code` as `close(code:reason:)` does, then returns once
    /// the closing handshake is over (the server answered with its close frame, or the
    /// connection is gone) or `timeout` passed, so that the socket is not released while
    /// the close frame is still on its way.
    func close(code: UInt16, reason: String, waitingUpTo timeout: Duration) async
}

extension ClientSocketConnection {
    /// Closes at once without waiting: for connections that have no closing handshake to
    /// wait for (in memory).
    public func close(code: UInt16, reason: String, waitingUpTo timeout: Duration) async {
        close(code: code, reason: reason)
    }
}

/// An event of a connection.
public enum ClientSocketEvent: Sendable, Equatable {
    /// A whole text message.
    case message([UInt8])
    /// The connection is gone; `code` is the close status (1006 when it vanished without one).
    case closed(code: UInt16, reason: String)
}

/// What to connect to.
public struct ClientSocketRequest: Sendable, Equatable {
    /// A `ws://` or `wss://` URL.
    public var url: String
    /// Subprotocols offered.
    public var subprotocols: [String]
    /// Extra request headers (`Authorization`).
    public var headers: [String: String]

    /// Creates a request.
    public init(url: String, subprotocols: [String] = [], headers: [String: String] = [:]) {
        self.url = url
        self.subprotocols = subprotocols
        self.headers = headers
    }
}

/// Why a connection did not open.
public struct ClientSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One readable sentence.
    public var message: String
    /// The HTTP status when the server refused the upgrade (401: the token).
    public var httpStatus: Int?
    /// Whether the URL itself is unusable (retrying cannot help).
    public var isInvalidURL: Bool

    /// Creates an error.
    public init(_ message: String, httpStatus: Int? = nil, isInvalidURL: Bool = false) {
        self.message = message
        self.httpStatus = httpStatus
        self.isInvalidURL = isInvalidURL
    }

    public var description: String { message }
}
