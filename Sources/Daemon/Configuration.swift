public import Logging

/// The daemon's whole configuration: the JSON file of CONFIG.md, then environment, then
/// flags. Every member has a default, so `Configuration()` runs as it is.
public struct Configuration: Sendable, Equatable {
    /// Per-connection limits (`limits` in the file).
    public struct Limits: Sendable, Equatable {
        /// `limits.maxMessageBytes`: larger messages close the connection with 1009.
        public var maxMessageBytes = 65536
        /// `limits.maxConnections`: further upgrades get HTTP 503.
        public var maxConnections = 10000
        /// `limits.maxJoinsPerConnection`: `too_many_joins` beyond.
        public var maxJoinsPerConnection = 64
        /// `limits.actionsPerSecond`: the token bucket's rate.
        public var actionsPerSecond = 200
        /// `limits.actionBurst`: the token bucket's size.
        public var actionBurst = 400
        /// `limits.outboundQueueBytes`: the slow-consumer threshold.
        public var outboundQueueBytes = 1_048_576
    }

    /// Per-instance patch history kept for resumes (`history`).
    public struct History: Sendable, Equatable {
        /// `history.patches`: patches kept per instance for resumes.
        public var patches = 256
    }

    /// WebSocket ping keepalive (`keepalive`): drops peers that stopped answering.
    public struct Keepalive: Sendable, Equatable {
        /// `keepalive.pingSeconds`: silence before a ping.
        public var pingSeconds = 30
        /// `keepalive.timeoutSeconds`: silence before the connection is dropped.
        public var timeoutSeconds = 60
    }

    /// Settings of the shipped reactor kinds (`reactors`).
    public struct Reactors: Sendable, Equatable {
        /// `reactors.counter`.
        public struct Counter: Sendable, Equatable {
            /// The delay before the value changes.
            public var delayMs = 500
        }
        /// `reactors.weather`.
        public struct Weather: Sendable, Equatable {
            /// The offline cities file.
            public var dataFile = "config/weather.json"
            /// The simulated lookup latency.
            public var latencyMs = 300
        }
        /// `reactors.todo`.
        public struct Todo: Sendable, Equatable {
            /// Items a list may hold.
            public var maxItems = 1000
            /// Characters a title may have.
            public var maxTitleLength = 200
        }
        /// `reactors.doc`.
        public struct Doc: Sendable, Equatable {
            /// Bytes of compact JSON a document may take.
            public var maxBytes = 1_048_576
        }
        /// The counter kind's settings.
        public var counter = Counter()
        /// The weather kind's settings.
        public var weather = Weather()
        /// The todo kind's settings.
        public var todo = Todo()
        /// The doc kind's settings.
        public var doc = Doc()
    }

    /// Where instance state is kept between restarts (`persistence`).
    public struct Persistence: Sendable, Equatable {
        /// `memory` keeps nothing; `sqlite` keeps every instance in a database file.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            case memory, sqlite
        }
        /// `persistence.kind`.
        public var kind = Kind.memory
        /// `persistence.path`: the SQLite file.
        public var path = "data/reactorhub.sqlite"
        /// `persistence.flushMs`: the longest a change waits to be committed.
        public var flushMs = 200
        /// A batch is committed early once this many changes are pending.
        public var flushChanges = 1000
        /// `persistence.durableAcks`: ack only what is committed.
        public var durableAcks = false
    }

    /// `host`: the address to listen on.
    public var host = "127.0.0.1"
    /// `port`: 0 binds an ephemeral port.
    public var port = 8080
    /// `webRoot`: the folder served over HTTP.
    public var webRoot = "web"
    /// `logLevel`: the least severe level logged.
    public var logLevel = Logger.Level.info
    /// `limits`.
    public var limits = Limits()
    /// `shutdownGraceMs`: how long running effects may finish at shutdown.
    public var shutdownGraceMs = 5000
    /// `history`.
    public var history = History()
    /// `keepalive`.
    public var keepalive = Keepalive()
    /// `reactors`.
    public var reactors = Reactors()
    /// `persistence`.
    public var persistence = Persistence()

    /// The built-in defaults.
    public init() {}
}
