/// Where Redis is and how patiently to talk to it; shared by `RedisClient` and
/// `RedisSubscriber`.
public struct RedisConfiguration: Sendable, Hashable {
    /// The server's address (`cluster.redis`'s host).
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The longest a connection attempt waits.
    public var connectTimeout: Duration = .seconds(2)
    /// The longest one command waits for its reply before the link is declared down. A
    /// blocking command (XREAD BLOCK) needs a timeout longer than its block.
    public var commandTimeout: Duration = .seconds(2)
    /// The wait before the second reconnection attempt (the first is immediate); it
    /// doubles after each failure up to `maximumReconnectDelay`, with random jitter.
    public var reconnectDelay: Duration = .milliseconds(50)
    /// The longest wait between two reconnection attempts.
    public var maximumReconnectDelay: Duration = .seconds(2)
    /// An idle link is checked with PING this often, so that a dead link is noticed (and
    /// reported) even when nothing is being sent.
    public var healthCheckInterval: Duration = .seconds(1)
    /// Names the thread and the log lines (`redis`, `redis-subscriber`, `redis-inbox`).
    public var name = "redis"
    /// Set on each connection with CLIENT SETNAME (`reactorhub-NODE-redis`), so that an
    /// operator's CLIENT LIST says whose link it is; nil: unnamed.
    public var clientName: String?

    /// A server at `host:port` with the default timeouts.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (the `cluster.redis` setting); nil when it is not of that form.
    public init?(address: String) {
        guard let endpoint = RedisEndpoint(address: address) else { return nil }
        self.init(host: endpoint.host, port: endpoint.port)
    }

    /// The server of `host` and `port`.
    public var endpoint: RedisEndpoint {
        RedisEndpoint(host: host, port: port)
    }
}
