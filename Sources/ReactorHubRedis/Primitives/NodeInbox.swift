/// One action forwarded to the node that owns its instance.
public struct InboxEntry: Sendable, Hashable {
    /// The stream ID (`MS-SEQ`, Redis' clock).
    public var id: String
    /// The node that forwarded it (where the reply goes).
    public var from: String
    /// The instance, `KIND/ID`.
    public var instance: String
    /// The forwarded action as the integrator encoded it (action, ref, id, session).
    public var payload: [UInt8]

    /// An entry from one XREAD element `[id, [field, value, …]]`.
    init(streamElement: RedisValue) throws(RedisError) {
        let parts = try streamElement.expectArray("inbox entry")
        guard parts.count == 2 else { throw RedisError(.unexpectedReply, "inbox entry: \(streamElement)") }
        id = try parts[0].expectText("inbox entry ID")
        let fields = try parts[1].expectFieldMap("inbox entry fields")
        from = fields["from"].map { String(decoding: $0, as: UTF8.self) } ?? ""
        instance = fields["instance"].map { String(decoding: $0, as: UTF8.self) } ?? ""
        payload = fields["payload"] ?? []
    }
}

/// Forwards actions to the node that owns their instance, through that node's inbox
/// stream `PREFIX:node:NODE:inbox` (read there by an `InboxReader`).
///
/// The reply comes back through the instance's log and channel (`InstanceStore.commit`
/// and `reply` with `replyTo`), so that it reaches the origin node in order with the
/// patches the action caused: the ack before them.
public struct NodeInbox: Sendable {
    private let client: RedisClient
    private let options: ClusterOptions

    /// Posts from node `options.nodeID` through `client`.
    public init(client: RedisClient, options: ClusterOptions) {
        self.client = client
        self.options = options
    }

    /// Appends `payload` for `instance` to `node`'s inbox; false (nothing written) when
    /// `node` is not alive (its heartbeat lapsed): find the new owner, or answer
    /// `overloaded`.
    public func post(to node: String, instance: String, payload: [UInt8]) async throws(RedisError) -> Bool {
        let keys = options.keys
        let reply = try await client.run(
            NodeScripts.post,
            keys: [RedisArgument(keys.inbox(node)), RedisArgument(keys.node(node))],
            arguments: [
                .int(options.inboxLength), .milliseconds(options.lease * 10),
                RedisArgument(options.nodeID), RedisArgument(instance), .bytes(payload),
            ]
        )
        return !reply.isNull
    }
}
