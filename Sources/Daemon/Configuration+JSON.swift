public import JSON

extension Configuration {
    /// The configuration as the JSON file would spell it (what `--print-config` prints).
    public var json: JSONValue {
        .object([
            "host": .string(host),
            "port": .int(port),
            "webRoot": .string(webRoot),
            "logLevel": .string(logLevel.rawValue),
            "limits": .object([
                "maxMessageBytes": .int(limits.maxMessageBytes),
                "maxConnections": .int(limits.maxConnections),
                "maxJoinsPerConnection": .int(limits.maxJoinsPerConnection),
                "actionsPerSecond": .int(limits.actionsPerSecond),
                "actionBurst": .int(limits.actionBurst),
                "outboundQueueBytes": .int(limits.outboundQueueBytes),
            ]),
            "shutdownGraceMs": .int(shutdownGraceMs),
            "history": .object(["patches": .int(history.patches)]),
            "keepalive": .object([
                "pingSeconds": .int(keepalive.pingSeconds),
                "timeoutSeconds": .int(keepalive.timeoutSeconds),
            ]),
            "reactors": .object([
                "counter": .object(["delayMs": .int(reactors.counter.delayMs)]),
                "weather": .object([
                    "dataFile": .string(reactors.weather.dataFile),
                    "latencyMs": .int(reactors.weather.latencyMs),
                ]),
                "todo": .object([
                    "maxItems": .int(reactors.todo.maxItems),
                    "maxTitleLength": .int(reactors.todo.maxTitleLength),
                ]),
                "doc": .object(["maxBytes": .int(reactors.doc.maxBytes)]),
            ]),
            "persistence": .object([
                "kind": .string(persistence.kind.rawValue),
                "path": .string(persistence.path),
                "flushMs": .int(persistence.flushMs),
                "flushChanges": .int(persistence.flushChanges),
                "durableAcks": .bool(persistence.durableAcks),
            ]),
        ])
    }
}
