import ReactorHubLocking
public import ReactorHubLogging

/// Reads this node's inbox (`PREFIX:node:NODE:inbox`) with XREAD BLOCK on a connection of
/// its own (a blocked read would hold up every other command of a shared client), and
/// hands each batch of entries, in order, to `handler`.
///
/// Plain XREAD from the last ID read, not a consumer group: each inbox has exactly one
/// reader (its node), node ids are fresh per process by default, and nobody would ever
/// claim a dead node's pending entries, so a group's pending list would only grow. A
/// forwarded action is delivered at most once; one lost with its owner is answered by
/// the origin's timeout, and a client's retry (with the same action id) is deduplicated.
/// At start the reader takes entries up to one lease old (by Redis' clock), so that an
/// action forwarded just before the reader started is not lost.
public final class InboxReader: Sendable {
    private let client: RedisClient
    private let options: ClusterOptions
    private let logger: Logger
    private let block: Duration
    private let handler: @Sendable ([InboxEntry]) async -> Void
    private let reading = Locked(false)

    /// A reader with its own connection to the master `directory` names (by default the
    /// server in `configuration`; its command timeout raised above `block`), delivering
    /// batches to `handler` one at a time. After a move to another master it goes on from
    /// the last entry it read: what the new master lacks was lost with the old one.
    public init(
        configuration: RedisConfiguration,
        directory: MasterDirectory? = nil,
        options: ClusterOptions,
        logger: Logger,
        block: Duration = .seconds(1),
        handler: @escaping @Sendable ([InboxEntry]) async -> Void
    ) {
        var configuration = configuration
        configuration.commandTimeout = max(configuration.commandTimeout, block + .seconds(2))
        configuration.name = "\(configuration.name)-inbox"
        configuration.clientName = configuration.clientName.map { "\($0)-inbox" }
        self.client = RedisClient(configuration: configuration, directory: directory, logger: logger)
        self.options = options
        self.logger = logger
        self.block = block
        self.handler = handler
    }

    /// Whether the reader's own link is up.
    public var isConnected: Bool {
        client.isConnected
    }

    /// Whether the link is up and the reader has its start position: every entry posted
    /// from now on is read (the node may take leases).
    public var isReading: Bool {
        client.isConnected && reading.withLock { $0 }
    }

    /// Drops the reader's connection and makes a new one (the delivery probe found pub/sub
    /// silent); reading goes on from the last entry read.
    public func reconnect() {
        client.reconnect()
    }

    /// Reads until the task is cancelled, then closes the connection.
    public func run() async {
        client.start()
        let key = RedisArgument(options.keys.inbox(options.nodeID))
        var last: String?
        while !Task.isCancelled {
            do {
                let cursor: String
                if let last {
                    cursor = last
                } else {
                    cursor = try await startCursor()
                    last = cursor
                    reading.withLock { $0 = true }
                }
                let reply = try await client.send([
                    "XREAD", "COUNT", 100, "BLOCK", .milliseconds(block), "STREAMS", key, RedisArgument(cursor),
                ])
                guard !reply.isNull else { continue }
                let streams = try reply.expectArray("xread")
                guard let stream = streams.first, let parts = stream.array, parts.count == 2 else { continue }
                let entries = try parts[1].expectArray("xread entries").map { (element) throws(RedisError) in
                    try InboxEntry(streamElement: element)
                }
                guard let newest = entries.last else { continue }
                last = newest.id
                await handler(entries)
                _ = try? await client.send(["XTRIM", key, "MINID", RedisArgument(newest.id)])
            } catch {
                logger.debug("inbox read failed", metadata: ["error": error.message])
                try? await Task.sleep(for: client.configuration.reconnectDelay * 4)
            }
        }
        await client.shutdown()
    }

    /// One lease before Redis' now: the exclusive XREAD cursor to start from.
    private func startCursor() async throws(RedisError) -> String {
        let time = try await client.send(["TIME"]).expectArray("time")
        guard time.count == 2 else { throw RedisError(.unexpectedReply, "TIME: \(time)") }
        let now = try time[0].expectInteger("time") * 1000 + (try time[1].expectInteger("time")) / 1000
        return "\(max(0, now - options.lease.wholeMilliseconds))-0"
    }
}
