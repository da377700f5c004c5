import JSON
import Logging

extension Configuration {
    /// Applies the configuration file's text over `self`; `source` names the file in errors.
    public mutating func apply(fileContents bytes: [UInt8], source: String) throws(ConfigurationError) {
        let value: JSONValue
        do {
            value = try JSONParser().parse(bytes)
        } catch {
            throw ConfigurationError("\(source): not valid JSON: \(error.message)")
        }
        var reader = try ConfigurationReader(value, path: "", source: source)
        try apply(&reader)
        try reader.finish()
    }

    private mutating func apply(_ top: inout ConfigurationReader) throws(ConfigurationError) {
        try top.string("host", into: &host)
        try top.integer("port", in: 0...65535, into: &port)
        try top.string("webRoot", into: &webRoot)
        try top.choice("logLevel", into: &logLevel)
        try top.section("limits") { reader throws(ConfigurationError) in
            try reader.integer("maxMessageBytes", in: 1024...67_108_864, into: &limits.maxMessageBytes)
            try reader.integer("maxConnections", in: 1...1_000_000, into: &limits.maxConnections)
            try reader.integer("maxJoinsPerConnection", in: 1...100_000, into: &limits.maxJoinsPerConnection)
            try reader.integer("actionsPerSecond", in: 1...10_000_000, into: &limits.actionsPerSecond)
            try reader.integer("actionBurst", in: 1...10_000_000, into: &limits.actionBurst)
            try reader.integer("outboundQueueBytes", in: 1024...1_073_741_824, into: &limits.outboundQueueBytes)
        }
        try top.integer("shutdownGraceMs", in: 0...600_000, into: &shutdownGraceMs)
        try top.section("history") { reader throws(ConfigurationError) in
            try reader.integer("patches", in: 0...1_000_000, into: &history.patches)
        }
        try top.section("keepalive") { reader throws(ConfigurationError) in
            try reader.integer("pingSeconds", in: 1...3600, into: &keepalive.pingSeconds)
            try reader.integer("timeoutSeconds", in: 2...7200, into: &keepalive.timeoutSeconds)
        }
        try top.section("reactors") { reader throws(ConfigurationError) in
            try reader.section("counter") { reader throws(ConfigurationError) in
                try reader.integer("delayMs", in: 0...600_000, into: &reactors.counter.delayMs)
            }
            try reader.section("weather") { reader throws(ConfigurationError) in
                try reader.string("dataFile", into: &reactors.weather.dataFile)
                try reader.integer("latencyMs", in: 0...600_000, into: &reactors.weather.latencyMs)
            }
            try reader.section("todo") { reader throws(ConfigurationError) in
                try reader.integer("maxItems", in: 1...1_000_000, into: &reactors.todo.maxItems)
                try reader.integer("maxTitleLength", in: 1...100_000, into: &reactors.todo.maxTitleLength)
            }
            try reader.section("doc") { reader throws(ConfigurationError) in
                try reader.integer("maxBytes", in: 2...268_435_456, into: &reactors.doc.maxBytes)
            }
        }
        try top.section("persistence") { reader throws(ConfigurationError) in
            try reader.choice("kind", into: &persistence.kind)
            try reader.string("path", into: &persistence.path)
            try reader.integer("flushMs", in: 1...600_000, into: &persistence.flushMs)
            try reader.integer("flushChanges", in: 1...1_000_000, into: &persistence.flushChanges)
            try reader.boolean("durableAcks", into: &persistence.durableAcks)
        }
        if keepalive.timeoutSeconds <= keepalive.pingSeconds {
            throw ConfigurationError(
                "\(top.source): keepalive.timeoutSeconds must be greater than keepalive.pingSeconds (\(keepalive.pingSeconds))"
            )
        }
    }
}

extension Logger.Level {
    /// Accepted names, for messages.
    static var acceptedNames: String {
        allCases.map(\.rawValue).joined(separator: ", ")
    }
}
