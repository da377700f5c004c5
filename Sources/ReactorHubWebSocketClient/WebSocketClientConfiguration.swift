/// Settings of a `WebSocketClient`, shared by every connection it opens.
public struct WebSocketClientConfiguration: Sendable, Equatable {
    /// A PEM file of certificate authorities trusted for `wss://`, in addition to the
    /// system's (`/etc/ssl/certs`); `nil` trusts the system's only.
    public var caFile: String?
    /// A whole inbound message larger than this closes the connection with 1009.
    public var maxMessageBytes: Int = 16 << 20
    /// Seconds allowed for TCP connect, TLS and the upgrade before a connection fails.
    public var connectTimeoutSeconds: Int = 10
    /// Seconds of silence after which lws pings the server.
    public var pingIntervalSeconds: Int = 30
    /// Seconds without any sign of the server after which the connection is dropped.
    public var pingTimeoutSeconds: Int = 60

    /// Creates the default configuration.
    public init() {}
}
