public import Transport

/// What the hub needs to know: the transport's settings and the per-connection limits.
public struct HubConfiguration: Sendable, Equatable {
    /// The WebSocket server's settings (host, port, web root, message and queue limits).
    public var transport = TransportConfiguration()
    /// The `server` member of `hello`.
    public var serverName = "reactorhub/\(ReactorHubVersion.current)"
    /// Joins one connection may hold at once (`too_many_joins` beyond).
    public var maxJoinsPerConnection = 64
    /// Actions per second one connection may send on average (`rate_limited` beyond).
    public var actionsPerSecond = 200
    /// Actions one connection may send in a burst.
    public var actionBurst = 400
    /// Patches kept per instance for resumes (`history.patches`).
    public var historyPatches = 256
    /// An instance without subscribers or running effects for this long is evicted from
    /// memory; its state stays in the state store and comes back on the next join.
    public var idleEviction: Duration = .seconds(60)
    /// Acks, patches and pulses leave only once the state they reveal is durable in the
    /// state store (`persistence.durableAcks`).
    public var durableAcks = false

    /// The defaults of PROTOCOL.md and CONFIG.md.
    public init() {}
}
