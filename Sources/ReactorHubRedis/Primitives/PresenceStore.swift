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

    /// What the presence writes publish on an instance's channel, beside its log entries:
    /// `P` then netstrings (`LEN:BYTES`) of the node, the session and the entry (empty
    /// when it was removed). Log entries start with a digit.
    public struct Notice: Sendable, Equatable {
        public let node: String
        public let session: String
        /// The entry's bytes; nil: removed.
        public let entry: [UInt8]?

        public init(node: String, session: String, entry: [UInt8]?) {
            self.node = node
            self.session = session
            self.entry = entry
        }

        /// Whether `payload`, a message of an instance's channel, is a presence notice.
        public static func isNotice(_ payload: [UInt8]) -> Bool {
            payload.first == UInt8(ascii: "P")
        }

        public var bytes: [UInt8] {
            [UInt8(ascii: "P")] + Netstrings.bytes([Array(node.utf8), Array(session.utf8), entry ?? []])
        }

        /// Decodes a notice; nil when `payload` is not one.
        public init?(_ payload: [UInt8]) {
            guard Self.isNotice(payload), let parts = Netstrings.parts(of: payload.dropFirst()), parts.count == 3 else {
                return nil
            }
            node = String(decoding: parts[0], as: UTF8.self)
            session = String(decoding: parts[1], as: UTF8.self)
            entry = parts[2].isEmpty ? nil : parts[2]
        }
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
        let notice = Notice(node: options.nodeID, session: session, entry: remove ? nil : entry)
        let left = try await client.run(
            NodeScripts.presence,
            keys: [RedisArgument(hash), RedisArgument(keys.presenceNodes)],
            arguments: [
                RedisArgument(options.nodeID), RedisArgument(session), .bytes(entry),
                .milliseconds(options.lease), remove ? "1" : "0", RedisArgument(keys.channel), .bytes(notice.bytes),
            ]
        ).expectInteger("presence")
        if left == 0 { registry.unbind(hash) }
    }
}
