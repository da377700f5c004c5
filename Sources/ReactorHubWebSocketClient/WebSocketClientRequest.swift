/// What to connect to and what to say in the upgrade request.
public struct WebSocketClientRequest: Sendable {
    /// Where to connect.
    public var url: WebSocketURL
    /// Subprotocols offered, in order of preference.
    public var subprotocols: [String]
    /// Extra request headers, e.g. `("Authorization", "Bearer …")`.
    public var headers: [(name: String, value: String)]
    /// For `wss://`: accept any certificate (self-signed, expired, another host). Tests only.
    public var allowsInsecureTLS: Bool

    /// Creates a request.
    public init(url: WebSocketURL, subprotocols: [String] = [], headers: [(name: String, value: String)] = [], allowsInsecureTLS: Bool = false) {
        self.url = url
        self.subprotocols = subprotocols
        self.headers = headers
        self.allowsInsecureTLS = allowsInsecureTLS
    }
}
