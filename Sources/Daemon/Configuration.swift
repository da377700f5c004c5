public import Logging

/// The daemon's whole configuration: the JSON file of CONFIG.md, then environment, then
/// flags. Every member has a default, so `Configuration()` runs as it is.
public struct Configuration: Sendable, Equatable {
    /// Per-connection limits (`limits` in the file).
    public struct Limits: Sendable, Equatable {
        public var maxMessageBytes = 65536
        public var maxConnections = 10000
        public var maxJoinsPerConnection = 64
        public var actionsPerSecond = 200
        public var actionBurst = 400
        public var outboundQueueBytes = 1_048_576
    }

    /// Per-instance patch history kept for resumes (`history`).
    public struct History: Sendable, Equatable {
        public var patches = 256
    }

    /// WebSocket ping keepalive (`keepalive`): drops peers that stopped answering.
    public struct Keepalive: Sendable, Equatable {
        public var pingSeconds = 30
        public var timeoutSeconds = 60
    }

    /// Settings of the shipped reactor kinds (`reactors`).
    public struct Reactors: Sendable, Equatable {
        public struct Counter: Sendable, Equatable {
            public var delayMs = 500
        }
        public struct Weather: Sendable, Equatable {
            public var dataFile = "config/weather.json"
            public var latencyMs = 300
        }
        public struct Todo: Sendable, Equatable {
            public var maxItems = 1000
            public var maxTitleLength = 200
        }
        public struct Doc: Sendable, Equatable {
            public var maxBytes = 1_048_576
        }
        public var counter = Counter()
        public var weather = Weather()
        public var todo = Todo()
        public var doc = Doc()
    }

    /// Where instance state is kept between restarts (`persistence`).
    public struct Persistence: Sendable, Equatable {
        /// `memory` keeps nothing; `sqlite` keeps every instance in a database file.
        public enum Kind: String, Sendable, Equatable, CaseIterable {
            case memory, sqlite
        }
        public var kind = Kind.memory
        public var path = "data/reactorhub.sqlite"
        public var flushMs = 200
        /// A batch is committed early once this many changes are pending.
        public var flushChanges = 1000
        public var durableAcks = false
    }

    public var host = "127.0.0.1"
    public var port = 8080
    public var webRoot = "web"
    public var logLevel = Logger.Level.info
    public var limits = Limits()
    public var shutdownGraceMs = 5000
    public var history = History()
    public var keepalive = Keepalive()
    public var reactors = Reactors()
    public var persistence = Persistence()

    /// The built-in defaults.
    public init() {}
}
