public import ReactorHubLogging

/// The daemon's whole configuration (CONFIG.md): built-in defaults, then the JSON file,
/// then environment, then flags. Every member has a default, so `Configuration()` runs as
/// it is; the optional sections (`auth`, `cluster`, …) are `nil` until the file (or one
/// of their flags) brings them in.
///
/// The defaults are the property initializers below; names, ranges, docs, variables and
/// flags are declared once, next to them, in `ConfigurationSchema`. Path members hold
/// absolute paths once `ConfigurationLoader` has resolved them.
public struct Configuration: Sendable, Equatable {
    /// How log lines are written to standard error (`logFormat`).
    public enum LogFormat: String, Sendable, Equatable, CaseIterable {
        /// `2026-11-30T04:22:37.123Z info hub: joined reactor=counter/lobby`.
        case text
        /// One JSON object per line.
        case json
    }

    /// Per-connection limits (`limits`).
    public struct Limits: Sendable, Equatable {
        /// `limits.maxMessageBytes`.
        public var maxMessageBytes = 65536
        /// `limits.maxConnections`.
        public var maxConnections = 10000
        /// `limits.maxJoinsPerConnection`.
        public var maxJoinsPerConnection = 64
        /// `limits.actionsPerSecond`.
        public var actionsPerSecond = 200
        /// `limits.actionBurst`.
        public var actionBurst = 400
        /// `limits.outboundQueueBytes`.
        public var outboundQueueBytes = 1_048_576
        /// `limits.outboundBudgetBytes`: what all connections' outboxes may hold together.
        public var outboundBudgetBytes = 268_435_456
        /// `limits.maxInstances`: instances held in memory at once.
        public var maxInstances = 20_000
        /// `limits.maxPendingActions`: actions waiting in one instance before the senders'
        /// sockets stop being read.
        public var maxPendingActions = 4096
        /// `limits.maxPendingActionsTotal`: the same over every instance.
        public var maxPendingActionsTotal = 65_536
        /// `limits.maxConnectionsPerAddress`: open sockets from one peer address.
        public var maxConnectionsPerAddress = 256
        /// `limits.upgradesPerSecond`: new WebSocket upgrades accepted per second.
        public var upgradesPerSecond = 1000
        /// `limits.maxMemoryBytes`: resident memory the daemon may use; nil: half of the
        /// cgroup's limit or of physical memory.
        public var maxMemoryBytes: Int?
        /// `limits.maxInstancesPerUser`: instances one user (or, anonymous, one peer
        /// address) may have created and hold; nil: `maxInstances / 10`.
        public var maxInstancesPerUser: Int?
        /// `limits.joinsPerSecond`: the rate of each connection's join bucket.
        public var joinsPerSecond = 20
        /// `limits.joinBurst`: the size of each connection's join bucket.
        public var joinBurst = 40
        /// `limits.tlsHandshakesPerSecond`: TLS handshakes one peer address may start per second.
        public var tlsHandshakesPerSecond = 50
        /// `limits.tlsHandshakeBurst`: TLS handshakes one peer address may start at once.
        public var tlsHandshakeBurst = 100

        /// The defaults.
        public init() {}
    }

    /// Per-instance patch history kept for resumes (`history`).
    public struct History: Sendable, Equatable {
        /// `history.patches`.
        public var patches = 256
        /// `history.maxBytes`: bytes of patch frames kept per instance.
        public var maxBytes = 1_048_576

        /// The defaults.
        public init() {}
    }

    /// WebSocket ping keepalive (`keepalive`).
    public struct Keepalive: Sendable, Equatable {
        /// `keepalive.pingSeconds`.
        public var pingSeconds = 30
        /// `keepalive.timeoutSeconds`.
        public var timeoutSeconds = 60

        /// The defaults.
        public init() {}
    }

    /// Where instance state is kept between restarts (`persistence`).
    public struct Persistence: Sendable, Equatable {
        /// The state store.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            /// Nothing kept between restarts.
            case memory
            /// Every instance in one SQLite database file.
            case sqlite
            /// Redis holds state and history: the only kind a `cluster` accepts.
            case redis
        }
        /// `persistence.kind`.
        public var kind = Kind.memory
        /// `persistence.path`.
        public var path = "data/reactorhub.sqlite"
        /// `persistence.flushMs`.
        public var flushMs = 200
        /// `persistence.flushChanges`.
        public var flushChanges = 1000
        /// `persistence.durableAcks`.
        public var durableAcks = false

        /// The defaults.
        public init() {}
    }

    /// Settings of the diagnostic endpoints (`diagnostics`).
    public struct Diagnostics: Sendable, Equatable {
        /// `diagnostics.echoPath`: `nil` serves no echo endpoint.
        public var echoPath: String?
        /// `diagnostics.idleEvictionMs`: how long an instance without subscribers or
        /// running effects stays in memory (tests shorten it).
        public var idleEvictionMs = 60_000

        /// The defaults.
        public init() {}
    }

    /// `host`.
    public var host = "127.0.0.1"
    /// `port`.
    public var port = 8080
    /// `webRoot`.
    public var webRoot = "web"
    /// `logLevel`.
    public var logLevel = Logger.Level.info
    /// `logFormat`.
    public var logFormat = LogFormat.text
    /// `limits`.
    public var limits = Limits()
    /// `shutdownGraceMs`.
    public var shutdownGraceMs = 5000
    /// `history`.
    public var history = History()
    /// `keepalive`.
    public var keepalive = Keepalive()
    /// `reactors`.
    public var reactors = Reactors()
    /// `persistence`.
    public var persistence = Persistence()
    /// `auth`: `nil` lets every connection join and act on every reactor.
    public var auth: Auth?
    /// `admin`: `nil` answers the admin endpoints with 404.
    public var admin: Admin?
    /// `security`: `nil` behaves as `Security()` (same-origin upgrades only).
    public var security: Security?
    /// `tls`: `nil` serves plain HTTP and WS.
    public var tls: TLS?
    /// `metrics`: `nil` serves no `/metrics` or `/readyz`.
    public var metrics: Metrics?
    /// `actions`: `nil` behaves as `Actions()`.
    public var actions: Actions?
    /// `presence`: `nil` behaves as `Presence()`.
    public var presence: Presence?
    /// `cluster`: `nil` runs one daemon on its own.
    public var cluster: Cluster?
    /// `api`: `nil` behaves as `API()` (the HTTP API is on).
    public var api: API?
    /// `webhooks`: the receivers of webhooks; empty: none.
    public var webhooks: [Webhook] = []
    /// `diagnostics`.
    public var diagnostics = Diagnostics()

    /// The built-in defaults.
    public init() {}
}
