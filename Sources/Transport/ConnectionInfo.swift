/// What the server knows about a connection when its upgrade completes.
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

    /// Creates a description of a connection.
    public init(id: ConnectionID, path: String, origin: String?, subprotocol: String?, peerAddress: String) {
        self.id = id
        self.path = path
        self.origin = origin
        self.subprotocol = subprotocol
        self.peerAddress = peerAddress
    }
}
