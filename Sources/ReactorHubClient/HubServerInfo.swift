public import ReactorHubJSON

/// What the server said in its `hello` on the current connection.
public struct HubServerInfo: Sendable, Hashable {
    /// The protocol version (1).
    public var protocolVersion: Int
    /// The server's name and version, e.g. `reactorhub/0.1.0`.
    public var server: String
    /// This connection's session id, e.g. `c7`.
    public var session: String
    /// The node the connection reached (`hello.node`), when the daemon runs in a cluster.
    public var node: String?
    /// The authenticated user, when the connection has one.
    public var user: String?
    /// Whether the server waits for an `auth` message before serving anything else.
    public var authRequired: Bool
    /// Every kind with its actions and pulses (`hello.reactors`).
    public var kinds: JSONValue

    /// The pulse names of `kind`, as the server lists them.
    public func pulseNames(of kind: String) -> [String] {
        kinds[kind]?["pulses"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    init?(hello: JSONValue) {
        guard let session = hello["session"]?.stringValue else { return nil }
        self.protocolVersion = hello["protocol"]?.intValue ?? 1
        self.server = hello["server"]?.stringValue ?? ""
        self.session = session
        self.node = hello["node"]?.stringValue
        self.user = hello["user"]?.stringValue
        self.authRequired = hello["auth"]?.stringValue == "required"
        self.kinds = hello["reactors"] ?? .object([:])
    }
}
