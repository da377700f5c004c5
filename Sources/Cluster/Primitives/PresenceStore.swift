/// Presence entries of this node's connections, per instance: the hash
/// `…:{KIND/ID}:presence:NODE` (session → entry bytes), whose expiry is one lease,
/// renewed by the node's heartbeat. When a node stops renewing, its entries vanish within
/// one lease and every node's `entries(of:)` stops listing them.
public struct PresenceStore: Sendable {
    private let client: RedisClient
    private let options: ClusterOptions
    private let registry: NodeRegistry

    /// The presence of `registry`'s node, through `client`.
    public init(client: RedisClient, options: ClusterOptions, registry: NodeRegistry) {
        self.client = client
        self.options = options
        self.registry = registry
    }

    /// Sets `session`'s presence entry in `address` (the encoded `{user, state}`).
    public func set(_ address: String, session: String, entry: [UInt8]) async throws(RedisError) {
        try await write(address, session: session, entry: entry, remove: false)
    }

    /// Removes `session`'s entry in `address` (left, closed, or `state: null`).
    public func remove(_ address: String, session: String) async throws(RedisError) {
        try await write(address, session: session, entry: [], remove: true)
    }

    /// Every node's live entries for `address`: node → session → entry.
    public func entries(of address: String) async throws(RedisError) -> [String: [String: [UInt8]]] {
        let keys = options.keys.instance(address)
        let flat = try await client.run(
            NodeScripts.presenceRead,
            keys: [RedisArgument(keys.presenceNodes)],
            arguments: [RedisArgument(keys.presence(""))]
        ).expectArray("presence")
        var byNode: [String: [String: [UInt8]]] = [:]
        for index in stride(from: 0, to: flat.count - 1, by: 2) {
            byNode[try flat[index].expectText("presence node")] = try flat[index + 1].expectFieldMap("presence entries")
        }
        return byNode
    }

    private func write(_ address: String, session: String, entry: [UInt8], remove: Bool) async throws(RedisError) {
        let keys = options.keys.instance(address)
        let hash = keys.presence(options.nodeID)
        if !remove { registry.bind(hash) }
        let left = try await client.run(
            NodeScripts.presence,
            keys: [RedisArgument(hash), RedisArgument(keys.presenceNodes)],
            arguments: [
                RedisArgument(options.nodeID), RedisArgument(session), .bytes(entry),
                .milliseconds(options.lease), remove ? "1" : "0",
            ]
        ).expectInteger("presence")
        if left == 0 { registry.unbind(hash) }
    }
}
