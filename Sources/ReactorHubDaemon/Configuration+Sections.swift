/// A section of the file that is absent unless the file (or one of its flags or
/// variables) brings it in; once present, its members start from `init()`.
protocol OptionalSection: Sendable {
    init()
}

extension Configuration {
    /// Token verification (`auth`, PROTOCOL.md "Identity and rights").
    public struct Auth: Sendable, Equatable, OptionalSection {
        /// Reactor address patterns a connection may read (join) and act on.
        public struct Rights: Sendable, Equatable {
            /// Patterns of the reactors that may be joined.
            public var read: [String] = []
            /// Patterns of the reactors that may be acted on.
            public var act: [String] = []

            /// No rights, or the given ones.
            public init(read: [String] = [], act: [String] = []) {
                self.read = read
                self.act = act
            }
        }
        /// `auth.hs256Secret` (or `REACTORHUB_AUTH_SECRET`); never printed.
        public var hs256Secret: String?
        /// `auth.publicKeyFile`: a PEM public key for RS256 and ES256 tokens.
        public var publicKeyFile: String?
        /// `auth.audience`: checked against `aud` when set.
        public var audience: String?
        /// `auth.issuer`: checked against `iss` when set.
        public var issuer: String?
        /// `auth.leewaySeconds`.
        public var leewaySeconds = 30
        /// `auth.required`.
        public var required = true
        /// `auth.timeoutMs`.
        public var timeoutMs = 10000
        /// `auth.anonymousRights`.
        public var anonymousRights = Rights()

        /// The defaults of a present `auth` section.
        public init() {}
    }

    /// The admin endpoints (`admin`).
    public struct Admin: Sendable, Equatable, OptionalSection {
        /// `admin.token`: the bearer the admin endpoints require; never printed.
        public var token: String?

        /// The defaults of a present `admin` section.
        public init() {}
    }

    /// Browser-facing checks at the upgrade (`security`).
    public struct Security: Sendable, Equatable, OptionalSection {
        /// `security.allowedOrigins`.
        public var allowedOrigins: [String] = []
        /// `security.allowedHosts`.
        public var allowedHosts: [String] = []

        /// The defaults of a present `security` section.
        public init() {}
    }

    /// HTTPS and WSS (`tls`): both files or neither.
    public struct TLS: Sendable, Equatable, OptionalSection {
        /// `tls.certFile` (PEM).
        public var certFile: String?
        /// `tls.keyFile` (PEM).
        public var keyFile: String?

        /// The defaults of a present `tls` section.
        public init() {}
    }

    /// `GET /metrics` and `GET /readyz` (`metrics`).
    public struct Metrics: Sendable, Equatable, OptionalSection {
        /// `metrics.enabled`.
        public var enabled = true

        /// The defaults of a present `metrics` section.
        public init() {}
    }

    /// How the WebSocket server serves sockets (`server`).
    public struct Server: Sendable, Equatable, OptionalSection {
        /// `server.threads`: threads serving sockets, 0 to 256; 0: one per CPU core the
        /// process may use (`serviceThreads`).
        public var threads = 0
        /// `server.compression`: accept permessage-deflate when a client offers it.
        public var compression = true

        /// The threads that serve sockets: `threads`, or with 0 the CPU cores this process
        /// may run on (its affinity mask, as `taskset` or a container's cpuset sets it).
        public var serviceThreads: Int {
            threads > 0 ? threads : CPUCores.usable
        }

        /// The defaults of a present `server` section.
        public init() {}
    }

    /// Idempotent action ids (`actions`).
    public struct Actions: Sendable, Equatable, OptionalSection {
        /// `actions.dedupeSeconds`.
        public var dedupeSeconds = 300
        /// `actions.dedupeEntries`.
        public var dedupeEntries = 10000

        /// The defaults of a present `actions` section.
        public init() {}
    }

    /// Presence (`presence`).
    public struct Presence: Sendable, Equatable, OptionalSection {
        /// `presence.maxBytes`.
        public var maxBytes = 1024
        /// `presence.maxListed`.
        public var maxListed = 100

        /// The defaults of a present `presence` section.
        public init() {}
    }

    /// Several daemons sharing their reactors through Redis (`cluster`, CLUSTER.md).
    public struct Cluster: Sendable, Equatable, OptionalSection {
        /// `cluster.redis`: `HOST:PORT`.
        public var redis = "127.0.0.1:6379"
        /// `cluster.nodeId`: `nil` draws a random id at each start.
        public var nodeId: String?
        /// `cluster.leaseMs`.
        public var leaseMs = 5000
        /// `cluster.keyPrefix`.
        public var keyPrefix = "rh"
        /// `cluster.sentinels`: `HOST:PORT` of each sentinel; non-empty: `redis` is ignored
        /// and the master is the one a majority of them names.
        public var sentinels: [String] = []
        /// `cluster.masterName`: the name the sentinels monitor the master under.
        public var masterName: String?
        /// `cluster.minReplicas`: replicas `WAIT` must confirm a commit reached before it is acked.
        public var minReplicas = 0

        /// The defaults of a present `cluster` section.
        public init() {}
    }
}

extension Configuration {
    /// The HTTP API, event stream included (`api`, shared/API.md).
    public struct API: Sendable, Equatable, OptionalSection {
        /// `api.enabled`: false answers every path under `/api/v1/` with 404.
        public var enabled = true

        /// The defaults of a present `api` section.
        public init() {}
    }
}

extension Configuration {
    /// One receiver of webhooks (`webhooks`, shared/API.md "Webhooks").
    public struct Webhook: Sendable, Equatable {
        /// The event names a receiver may hear.
        public static let eventNames = ["pulse", "action", "instance.created", "instance.evicted"]

        /// `url`: where events are posted (`http://` or `https://`).
        public var url: String
        /// `secret`: the HMAC-SHA256 key of `X-ReactorHub-Signature`; never printed.
        public var secret: String
        /// `events`: what it hears; absent: every event.
        public var events: [String] = eventNames
        /// `reactors`: rights patterns of the reactors it hears; absent: `["*"]`.
        public var reactors: [String] = ["*"]
        /// `timeoutMs`: how long one attempt may take.
        public var timeoutMs = 5000
        /// `maxAttempts`: attempts per event, the first included.
        public var maxAttempts = 8
        /// `queueBytes`: bytes of events queued for it; the oldest are dropped beyond.
        public var queueBytes = 8_388_608

        /// A receiver at `url` signing with `secret`, with the defaults for the rest.
        public init(url: String, secret: String) {
            self.url = url
            self.secret = secret
        }
    }
}
