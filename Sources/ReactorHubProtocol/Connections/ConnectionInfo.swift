/// What the server knows about a connection when its upgrade completes (or, for an event
/// stream, when its response begins).
public struct ConnectionInfo: Sendable, Equatable {
    /// The connection's identifier.
    public var id: ConnectionID
    /// The request path of the upgrade, e.g. `/ws`.
    public var path: String
    /// The `Origin` header, when the client sent one (browsers always do).
    public var origin: String?
    /// The subprotocol selected for the client, or `nil` when it offered none.
    public var subprotocol: String?
    /// The peer's address, e.g. `127.0.0.1`.
    public var peerAddress: String
    /// The upgrade's query arguments and `Authorization` header (the credentials of the
    /// layer above, e.g. `?token=`), as `shouldAccept` saw them.
    public var query: [String: String]
    /// The upgrade's `Authorization` header, when sent.
    public var authorization: String?
    /// Set for an event stream (API.md): the reactor it follows; nil for a WebSocket.
    public var stream: EventStreamOpening?

    /// Creates a description of a connection.
    public init(
        id: ConnectionID, path: String, origin: String?, subprotocol: String?, peerAddress: String,
        query: [String: String] = [:], authorization: String? = nil, stream: EventStreamOpening? = nil
    ) {
        self.stream = stream
        self.id = id
        self.path = path
        self.origin = origin
        self.subprotocol = subprotocol
        self.peerAddress = peerAddress
        self.query = query
        self.authorization = authorization
    }
}
