/// What the hub needs to know: the protocol's limits and the persistence mode.
public struct HubConfiguration: Sendable {
    /// The `server` member of `hello`.
    public var serverName = "reactorhub/\(ReactorHubVersion.current)"
    /// Joins one connection may hold at once (`too_many_joins` beyond).
    public var maxJoinsPerConnection = 64
    /// Actions per second one connection may send on average (`rate_limited` beyond).
    public var actionsPerSecond = 200
    /// Actions one connection may send in a burst.
    public var actionBurst = 400
    /// The slow-reader threshold of each connection's outbox (`limits.outboundQueueBytes`).
    public var outboundQueueBytes = 1_048_576
    /// Patches kept per instance for resumes (`history.patches`).
    public var historyPatches = 256
    /// Bytes of patches kept per instance (`history.maxBytes`).
    public var historyBytes = 1_048_576
    /// Instances in memory at once (`limits.maxInstances`).
    public var maxInstances = 20_000
    /// Instances one user (a token's `sub`, or a peer address when anonymous) may have
    /// created and still hold (`limits.maxInstancesPerUser`); nil: `maxInstances / 10`.
    public var maxInstancesPerUser: Int?
    /// Joins per second one connection may send on average (`limits.joinsPerSecond`).
    public var joinsPerSecond = 20
    /// Joins one connection may send in a burst (`limits.joinBurst`).
    public var joinBurst = 40
    /// Resident memory the daemon may use (`limits.maxMemoryBytes`); past 90 % of it, joins
    /// that create instances and actions are refused `overloaded`; nil: no limit.
    public var maxMemoryBytes: Int?
    /// Actions waiting in one instance before its senders are no longer read
    /// (`limits.maxPendingActions`).
    public var maxPendingActions = 4096
    /// The same over every instance (`limits.maxPendingActionsTotal`).
    public var maxPendingActionsTotal = 65_536
    /// Bytes of compact JSON one presence state may take (`presence.maxBytes`).
    public var presenceMaxBytes = 1024
    /// Presence entries listed per instance; `presenceCount` beyond (`presence.maxListed`).
    public var presenceMaxListed = 100
    /// What every outbox may hold together (`limits.outboundBudgetBytes`).
    public var outboundBudgetBytes = 268_435_456
    /// An instance without subscribers or running effects for this long is evicted from
    /// memory; its state stays in the state store and comes back on the next join.
    public var idleEviction: Duration = .seconds(60)
    /// Acks, patches and pulses leave only once the state they reveal is durable in the
    /// state store (`persistence.durableAcks`).
    public var durableAcks = false
    /// How long running effects may finish at shutdown (`shutdownGraceMs`).
    public var shutdownGrace: Duration = .seconds(5)

    /// How long an instance remembers the reply to an action id (`actions.dedupeSeconds`).
    public var dedupeWindow: Duration = .seconds(300)
    /// At most this many action ids remembered per instance (`actions.dedupeEntries`).
    public var dedupeEntries = 10_000
    /// This node's id in a cluster (`cluster.nodeId`), shown in `hello.node`; nil alone.
    public var nodeID: String?

    /// Token verification and rights (`auth`); nil: every connection may do everything.
    public var auth: AuthPolicy?
    /// Whether `GET /metrics` answers (`metrics.enabled`).
    public var metricsEnabled = true
    /// The bearer token of the admin endpoints (`admin.token`); nil: they answer 404.
    public var adminToken: String?
    /// The largest message, and HTTP API body, accepted (`limits.maxMessageBytes`; 413 beyond).
    public var maxMessageBytes = 65536
    /// Whether the HTTP API and event stream answer under `/api/v1/` (`api.enabled`; 404 otherwise).
    public var apiEnabled = true
    /// Who hears instance events (webhooks); nil: nobody, and none are built.
    public var events: (any InstanceEventSink)?

    /// The defaults of PROTOCOL.md and CONFIG.md.
    public init() {}

    /// The per-user quota in force.
    var instancesPerUser: Int {
        maxInstancesPerUser ?? max(1, maxInstances / 10)
    }
}
