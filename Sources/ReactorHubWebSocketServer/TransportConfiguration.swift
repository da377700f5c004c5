/// Everything the WebSocket server needs to listen and to protect itself.
///
/// The defaults match PROTOCOL.md and CONFIG.md, so `TransportConfiguration()` runs as is.
public struct TransportConfiguration: Sendable, Equatable {
    /// The address to bind: an IPv4 or IPv6 literal, `localhost`, `0.0.0.0` or `::`.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 binds an ephemeral port, reported by `WebSocketServer.port`.
    public var port: Int = 8080
    /// The folder whose files are served over HTTP; `nil` serves no files.
    public var webRoot: String? = "web"
    /// The request path that upgrades to WebSocket.
    public var webSocketPath: String = "/ws"
    /// A second WebSocket path that echoes every text and binary message back, without the
    /// layer above (`diagnostics.echoPath`: conformance suites such as Autobahn need one);
    /// `nil` serves none.
    public var echoPath: String?
    /// The size limit of a message to the echo path (1009 beyond): Autobahn's largest
    /// cases send 16 MiB.
    public var echoMaxMessageBytes: Int = 16 << 20
    /// Accept permessage-deflate (RFC 7692) when a client offers it (`server.compression`):
    /// frames from 1024 bytes on go compressed, each compressed once for every connection.
    public var compression: Bool = true
    /// Threads serving sockets (`server.threads`), each with its own libwebsockets context:
    /// the first listens and hands every accepted socket to the thread holding the fewest,
    /// where the connection lives until it closes. At least 1.
    public var threads: Int = 1
    /// The subprotocol selected when a client offers it.
    public var subprotocol: String = "reactorhub.v1"
    /// The `Server` header of HTTP responses.
    public var serverName: String = "reactorhub"
    /// A whole inbound message larger than this closes the connection with 1009.
    public var maxMessageBytes: Int = 65536
    /// The largest HTTP request head (request line and headers) accepted; a larger one is
    /// answered 431. libwebsockets gets twice this much header space, so that it never
    /// runs out first (it drops the connection then).
    public var maxRequestHeadBytes: Int = 16384
    /// Upgrades past this many open WebSocket connections are refused with HTTP 503.
    public var maxConnections: Int = 10000
    /// Seconds without a pong before the server pings a connection.
    public var pingIntervalSeconds: Int = 30
    /// Seconds without a pong after which the connection is dropped as dead.
    public var pingTimeoutSeconds: Int = 60
    /// At shutdown, how long connections get to take what is queued and close before
    /// they are dropped (`shutdownGraceMs`).
    public var shutdownGrace: Duration = .seconds(5)
    /// Seconds a close that drops the output (1013, protocol violations) waits for room
    /// for its close frame before the socket is dropped without it.
    public var closeFrameTimeoutSeconds: Int = 5

    /// Origins (`scheme://host[:port]`) whose pages may open WebSockets, besides the
    /// server's own origin; `"*"` allows any (`security.allowedOrigins`).
    public var allowedOrigins: [String] = []
    /// `Host` names answered; empty: `host` (unless a wildcard), `localhost`, `127.0.0.1`
    /// and `[::1]`; `"*"`: any (`security.allowedHosts`). Others get 421.
    public var allowedHosts: [String] = []
    /// The PEM certificate and key; with them the port serves HTTPS and WSS only.
    public var tls: TLSFiles?
    /// Open sockets one peer address may hold (`limits.maxConnectionsPerAddress`).
    public var maxConnectionsPerAddress: Int = 256
    /// New WebSocket upgrades accepted per second (`limits.upgradesPerSecond`); 503 beyond.
    public var upgradesPerSecond: Int = 1000
    /// TLS handshakes one peer address may start per second, and in a burst
    /// (`limits.tlsHandshakesPerSecond`, `limits.tlsHandshakeBurst`); with `tls`, its
    /// sockets past them are closed at accept.
    public var tlsHandshakesPerSecond: Int = 50
    /// See `tlsHandshakesPerSecond`.
    public var tlsHandshakeBurst: Int = 100
    /// Descriptors kept free of sockets, so that `/healthz`, the store and the logs keep
    /// working when clients would take every one; up to 8 of them serve one `GET /healthz`
    /// each, sent within a second, to new connections meanwhile.
    public var descriptorReserve: Int = 64
    /// The largest HTTP request body read (POST to the admin endpoints); 413 beyond.
    public var maxRequestBodyBytes: Int = 65536

    /// A certificate and its private key, PEM files.
    public struct TLSFiles: Sendable, Equatable {
        /// The certificate (chain) file.
        public var certFile: String
        /// The private key file.
        public var keyFile: String

        /// Names the two files.
        public init(certFile: String, keyFile: String) {
            self.certFile = certFile
            self.keyFile = keyFile
        }
    }

    /// Creates the default configuration.
    public init() {}
}
