import ReactorHubLocking
public import ReactorHubLogging

/// This node's presence in the cluster: `PREFIX:node:NODE` with a PX lease, renewed by
/// `heartbeat` every `renewInterval`, and the sorted set of live nodes. Keys bound to the
/// node's lease (its presence entries) get their expiry renewed with each heartbeat, so
/// that they vanish within one lease once the node stops.
public final class NodeRegistry: Sendable {
    private let client: RedisClient
    private let options: ClusterOptions
    private let logger: Logger
    private let bound = Locked<Set<String>>([])

    /// The registry entry of node `options.nodeID`.
    public init(client: RedisClient, options: ClusterOptions, logger: Logger) {
        self.client = client
        self.options = options
        self.logger = logger
    }

    /// This node's id.
    public var nodeID: String {
        options.nodeID
    }

    /// Marks this node alive for one lease (SET PX + the live set), and extends the keys
    /// bound to its lease. `info` is stored as the node key's value (an address, a version).
    public func heartbeat(info: [UInt8] = []) async throws(RedisError) {
        let keys = options.keys
        _ = try await client.run(
            NodeScripts.heartbeat,
            keys: [RedisArgument(keys.node(options.nodeID)), RedisArgument(keys.nodes)],
            arguments: [RedisArgument(options.nodeID), .milliseconds(options.lease), .bytes(info)]
        )
        let renewals: [[RedisArgument]] = bound.withLock { $0 }.sorted().map { key in
            ["PEXPIRE", RedisArgument(key), .milliseconds(options.lease)]
        }
        if !renewals.isEmpty {
            _ = try await client.pipeline(renewals)
        }
    }

    /// The nodes whose heartbeat has not lapsed, by Redis' clock, sorted.
    public func liveNodes() async throws(RedisError) -> [String] {
        try await client.run(NodeScripts.live, keys: [RedisArgument(options.keys.nodes)], arguments: [])
            .expectArray("live nodes")
            .map { (node) throws(RedisError) in try node.expectText("node") }
            .sorted()
    }

    /// Whether `node`'s heartbeat key exists now.
    public func isAlive(_ node: String) async throws(RedisError) -> Bool {
        try await client.send(["EXISTS", RedisArgument(options.keys.node(node))]).expectInteger("exists") == 1
    }

    /// Removes this node from the cluster at once (clean shutdown, after releasing its
    /// leases), with its inbox and the keys bound to its lease.
    public func deregister() async throws(RedisError) {
        let keys = options.keys
        var commands: [[RedisArgument]] = [
            ["DEL", RedisArgument(keys.node(options.nodeID)), RedisArgument(keys.inbox(options.nodeID))],
            ["ZREM", RedisArgument(keys.nodes), RedisArgument(options.nodeID)],
        ]
        let boundKeys = bound.withLock { keys in
            defer { keys.removeAll() }
            return keys
        }
        commands += boundKeys.sorted().map { ["DEL", RedisArgument($0)] }
        for reply in try await client.pipeline(commands) {
            _ = try reply.throwingError()
        }
        logger.info("node deregistered", metadata: ["node": options.nodeID])
    }

    /// Renews `key`'s expiry with every heartbeat from now on.
    func bind(_ key: String) {
        bound.withLock { _ = $0.insert(key) }
    }

    /// Stops renewing `key`.
    func unbind(_ key: String) {
        bound.withLock { _ = $0.remove(key) }
    }
}
