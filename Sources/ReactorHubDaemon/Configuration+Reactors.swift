package import ReactorHubJSON

extension Configuration {
    /// Settings of the shipped reactor kinds (`reactors`), and the objects under
    /// `reactors.KIND` of kinds an embedder registers (decoded when they register).
    public struct Reactors: Sendable, Equatable {
        /// `reactors.KIND` for kinds other than the shipped four, as written.
        package var custom: [String: JSONValue] = [:]

        /// `reactors.counter`.
        public struct Counter: Sendable, Equatable {
            /// `reactors.counter.delayMs`.
            public var delayMs = 500

            /// The defaults.
            public init() {}
        }
        /// `reactors.weather`.
        public struct Weather: Sendable, Equatable {
            /// `reactors.weather.dataFile`.
            public var dataFile = "config/weather.json"
            /// `reactors.weather.latencyMs`.
            public var latencyMs = 300

            /// The defaults.
            public init() {}
        }
        /// `reactors.todo`.
        public struct Todo: Sendable, Equatable {
            /// `reactors.todo.maxItems`.
            public var maxItems = 1000
            /// `reactors.todo.maxTitleLength`.
            public var maxTitleLength = 200
            /// `reactors.todo.maxTitleBytes`: UTF-8 bytes a title may take.
            public var maxTitleBytes = 800

            /// The defaults.
            public init() {}
        }
        /// `reactors.doc`.
        public struct Doc: Sendable, Equatable {
            /// `reactors.doc.maxBytes`.
            public var maxBytes = 1_048_576
            /// `reactors.doc.maxDepth`: arrays and objects on the deepest path, the root being 1.
            public var maxDepth = 64
            /// `reactors.doc.maxElements`: elements one array, or members one object, may hold.
            public var maxElements = 10_000
            /// `reactors.doc.maxOperations`: operations one `patch` action may carry.
            public var maxOperations = 256

            /// The defaults.
            public init() {}
        }
        /// The counter kind's settings.
        public var counter = Counter()
        /// The weather kind's settings.
        public var weather = Weather()
        /// The todo kind's settings.
        public var todo = Todo()
        /// The doc kind's settings.
        public var doc = Doc()

        /// The defaults.
        public init() {}
    }
}
