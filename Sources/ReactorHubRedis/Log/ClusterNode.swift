public import ReactorHubEngine
package import Reactor
package import ReactorHubProtocol
public import ReactorHubLifecycle
public import ReactorHubLogging
import ReactorHubJSON
import ReactorHubLocking
import Synchronization

/// This daemon as one node of a cluster (shared/CLUSTER.md): its Redis links (to the master
/// `cluster.redis` names, or the one a majority of the sentinels names), its heartbeat and
/// leases, its inbox, its delivery probe, and the clustered instances it holds
/// (`ReplicaInstance`).
///
/// The hub calls it at three hooks: an instance is made here instead of in memory
/// (`makeInstance`, off the service thread), the drain hands the leases over
/// (`handOver`), and `hello` names the node. Everything that waits on Redis runs on the
/// Redis clients' threads and in tasks, never on the libwebsockets service thread.
///
/// Long-running: `start()` before the hub serves, then `run()` under the service group.
public final class ClusterNode: Service, InstanceHost, Sendable {
    /// This node's id, key prefix, lease and history lengths.
    public let options: ClusterOptions
    let logger: Logger
    /// Where the master is: fixed (`cluster.redis`), or as the sentinels name it.
    let directory: MasterDirectory
    let client: RedisClient
    /// The fenced writes' client: `client` itself, or with `minReplicas` a link of its own
    /// (its `WAIT`s would hold up everything else).
    let writer: RedisClient
    let subscriber: RedisSubscriber
    let watcher: SentinelWatcher?
    let probe: DeliveryProbe
    /// Replicas still repairing from the logs after the pub/sub link came back.
    let resyncing = Atomic<Int>(0)
    let store: InstanceStore
    let leases: InstanceLeases
    let registry: NodeRegistry
    let inbox: NodeInbox
    let presence: PresenceStore
    let heartbeat: ClusterHeartbeat
    let metrics = ClusterMetrics()
    let inboxReader: InboxReader
    private let relay: Relay
    let replicas = Locked<[String: any ClusterReplica]>([:])
    let pending = Locked(PendingReplies())
    let delivery = Locked<Delivery?>(nil)
    /// How the hub writes messages (set with the delivery).
    private let codecHolder = Locked<(any MessageCodec)?>(nil)
    private let stopping = Latch()
    private let draining = Atomic<Bool>(false)
    /// The drain has begun: this node hands its leases over and takes no more.
    var isDraining: Bool { draining.load(ordering: .sequentiallyConsistent) }
    /// The inbox reader's loop, started with the links and ended by `run()`'s shutdown.
    private let reading = Locked<Task<Void, Never>?>(nil)
    /// The sentinel watcher's loop, likewise: the master is asked for before the node serves.
    private let watching = Locked<Task<Void, Never>?>(nil)

    /// Passes the subscriber's, the inbox's and the heartbeat's events to the node, which
    /// exists only after they do.
    private final class Relay: Sendable {
        let node = Locked<ClusterNode?>(nil)
    }

    /// A node `options.nodeID` on the Redis server of `redis` (its timeouts only when
    /// `sentinel` is given: the master is then the one a majority of the sentinels names);
    /// nothing connects before `start()`.
    public convenience init(options: ClusterOptions, redis: RedisConfiguration, sentinel: SentinelConfiguration? = nil, logger: Logger) {
        self.init(options: options, redis: redis, sentinel: sentinel, directory: nil, logger: logger)
    }

    /// A node whose links follow `directory` when given (tests move the master by hand).
    init(options: ClusterOptions, redis: RedisConfiguration, sentinel: SentinelConfiguration?, directory given: MasterDirectory?, logger: Logger) {
        var logger = logger
        logger[metadataKey: "node"] = options.nodeID
        self.options = options
        self.logger = logger
        let relay = Relay()
        self.relay = relay
        var redis = redis
        redis.clientName = "reactorhub-" + String(options.nodeID.map { $0.isLetter || $0.isNumber || "-_.:".contains($0) ? $0 : "_" })
        if let given {
            directory = given
            watcher = nil
        } else if var sentinel {
            sentinel.link.clientName = redis.clientName
            directory = MasterDirectory(waitingFor: "asking the sentinels for master '\(sentinel.masterName)'")
            watcher = SentinelWatcher(configuration: sentinel, directory: directory, logger: logger)
        } else {
            directory = .fixed(redis.endpoint)
            watcher = nil
        }
        client = RedisClient(configuration: redis, directory: directory, logger: logger)
        if options.minReplicas > 0 {
            var writes = redis
            writes.name = "redis-writer"
            writes.clientName = redis.clientName.map { "\($0)-writer" }
            writer = RedisClient(configuration: writes, directory: directory, logger: logger)
        } else {
            writer = client
        }
        var subscription = redis
        subscription.name = "redis-subscriber"
        subscription.clientName = redis.clientName.map { "\($0)-subscriber" }
        subscriber = RedisSubscriber(configuration: subscription, directory: directory, logger: logger) { event in
            relay.node.withLock { $0 }?.handle(event)
        }
        probe = DeliveryProbe(channel: options.keys.probe(options.nodeID), client: client, logger: logger)
        store = InstanceStore(client: client, writer: writer, options: options, logger: logger)
        leases = InstanceLeases(client: client, options: options, logger: logger)
        registry = NodeRegistry(client: client, options: options, logger: logger)
        inbox = NodeInbox(client: client, options: options)
        presence = PresenceStore(client: client, options: options, registry: registry)
        heartbeat = ClusterHeartbeat(registry: registry, leases: leases, options: options, logger: logger) { lease in
            relay.node.withLock { $0 }?.leaseLost(lease)
        }
        inboxReader = InboxReader(configuration: redis, directory: directory, options: options, logger: logger) { entries in
            await relay.node.withLock { $0 }?.received(entries)
        }
        relay.node.withLock { $0 = self }
    }

    /// This node's id (`hello.node`).
    public var id: String { options.nodeID }

    /// The session name of a connection of this node (`hello.session`, presence keys):
    /// `NODE:cN`, unique across the nodes, where one daemon says `cN`.
    package func session(_ id: ConnectionID) -> String {
        "\(options.nodeID):\(id)"
    }

    /// How long a sender waits for the owner's reply before it is answered `overloaded`.
    /// (A reply lost with a failed owner is noticed sooner: when another node holds the lease.)
    var replyTimeout: Duration { max(options.lease + .seconds(5), .seconds(10)) }

    /// Connects to Redis (the client and the subscriber reconnect by themselves; with
    /// Sentinel, to the master the sentinels name) and starts reading this node's inbox, so
    /// that the node is ready before it serves; `run()` ends them.
    public func start() {
        if let watcher {
            watcher.start()
            watching.withLock { $0 = Task { await watcher.run() } }
        }
        client.start()
        if writer !== client { writer.start() }
        subscriber.start()
        let reader = inboxReader
        reading.withLock { $0 = Task { await reader.run() } }
    }

    /// Waits until the node can serve (a master named, every link up), at most `timeout`;
    /// false when it cannot yet.
    public func waitUntilConnected(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while unavailableReason != nil {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    package func attach(_ delivery: Delivery, codec: any MessageCodec) {
        self.delivery.withLock { $0 = delivery }
        codecHolder.withLock { $0 = codec }
    }

    /// The hub's codec (JSON frames without headroom until the hub attached).
    var codec: any MessageCodec {
        codecHolder.withLock { $0 } ?? JSONCodec()
    }

    // MARK: Service

    public var name: String { "cluster" }

    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.heartbeat.run() }
            group.addTask { await self.sweepLoop() }
            group.addTask { await self.proveDelivery() }
            await stopping.wait()
            group.cancelAll()
        }
        // The leases were handed over by the hub's drain (`handOver`), which runs first.
        if let reading = reading.withLock({ $0 }) {
            reading.cancel()
            await reading.value
        }
        do {
            try await registry.deregister()
        } catch {
            logger.info("node not deregistered", metadata: ["error": error.message])
        }
        if let watching = watching.withLock({ $0 }) {
            watching.cancel()
            await watching.value
        }
        await subscriber.shutdown()
        if writer !== client { await writer.shutdown() }
        await client.shutdown()
    }

    public func triggerGracefulShutdown() {
        stopping.open()
    }

    /// Commits what each owned instance has queued, writes its snapshot and releases its
    /// lease, so that another node takes it at once (SIGTERM). Forwarded actions are
    /// answered `overloaded` from now on.
    public func handOver() async {
        guard !draining.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let owned = replicas.withLock { Array($0.values) }.filter(\.isOwned)
        await withTaskGroup(of: Void.self) { group in
            for replica in owned {
                group.addTask { await replica.handOver() }
            }
        }
    }

    private func sweepLoop() async {
        var moves = directory.moves
        while !Task.isCancelled {
            for replica in replicas.withLock({ Array($0.values) }) {
                await replica.sweep()
            }
            if directory.moves != moves {
                moves = directory.moves
                shortenForwardedReplies()
                for replica in replicas.withLock({ Array($0.values) }) {
                    replica.masterMoved()
                }
            }
            expireReplies()
            try? await Task.sleep(for: options.renewInterval)
        }
    }

    // MARK: Instances

    package func makeInstance<R: Reactor>(
        _ make: @escaping @Sendable () -> R, restore: (@Sendable (R.State) -> R.State)?, address: ReactorAddress,
        context: ReactorKind.InstanceContext
    ) async -> Result<any HubInstance, ProtocolError> where R.Action: Decodable, R.State: Codable {
        let replica = ReplicaInstance<R>(address: address, context: context, node: self, make: make, adjust: restore)
        do {
            try await replica.start()
            return .success(replica)
        } catch {
            return .failure(error)
        }
    }

    func register(_ replica: any ClusterReplica) {
        replicas.withLock { $0[replica.addressText] = replica }
    }

    func unregister(_ replica: any ClusterReplica) {
        replicas.withLock { replicas in
            if replicas[replica.addressText] === replica { replicas[replica.addressText] = nil }
        }
    }

    func release(_ lease: Lease) async {
        heartbeat.drop(lease)
        do {
            if try await leases.release(lease) {
                // The other nodes forget this node as the holder and try to take the lease
                // now, rather than at their next sweep (or after a forwarded action's timeout).
                _ = try await client.send(["PUBLISH", RedisArgument(store.channel(of: lease.address)), Self.releasedNotice])
            }
        } catch {
            logger.info("lease not released (it lapses by itself)", metadata: ["reactor": lease.address, "error": error.message])
        }
    }

    /// The message on an instance's channel that says its lease was just released.
    static let releasedNotice: RedisArgument = "R"


    private func leaseLost(_ lease: Lease) {
        replicas.withLock { $0[lease.address] }?.leaseLost(lease)
    }

    // MARK: Redis events

    private func handle(_ event: RedisSubscriber.Event) {
        switch event {
        case .message(let channel, let payload):
            if channel == probe.channel { return probe.received(payload) }
            guard let open = channel.firstIndex(of: "{"), let close = channel.lastIndex(of: "}"), open < close else { return }
            let address = String(channel[channel.index(after: open)..<close])
            guard let replica = replicas.withLock({ $0[address] }) else { return }
            if payload == [UInt8(ascii: "R")] {
                replica.leaseReleased()
                return
            }
            if PresenceStore.Notice.isNotice(payload) {
                if let notice = PresenceStore.Notice(payload) { replica.presenceNotice(notice) }
                return
            }
            do {
                replica.received(try LogEntry(channelMessage: payload))
            } catch {
                logger.warning("unreadable channel message", metadata: ["reactor": address, "error": error.message])
            }
        case .resubscribed:
            logger.info("pub/sub link back; replicas repair from the stream")
            resync(replicas.withLock { Array($0.values) })
        case .linkDown(let error):
            logger.warning("pub/sub link down", metadata: ["error": error.message])
        case .patternMessage:
            break
        }
    }

    private func received(_ entries: [InboxEntry]) async {
        for entry in entries {
            switch InboxMessage(bytes: entry.payload) {
            case .actions(let actions)?:
                let replica = draining.load(ordering: .relaxed) ? nil : replicas.withLock { $0[entry.instance] }
                for action in actions where !(replica?.accept(action) ?? false) {
                    answer(action.replyTo, codec.error(
                        ProtocolError(.overloaded, "\(entry.instance) has no owner yet (ownership is moving); retry"), ref: action.ref
                    ).withBytes { Array($0) }, bounced: entry.instance)
                }
            case .reply(let to, let reply, let bounced)?:
                if let bounced { replicas.withLock { $0[bounced] }?.forgetHolder() }
                deliverReply(to.token, reply)
            case .hold(let tokens)?:
                holdLocal(tokens)
            case nil:
                logger.warning("unreadable inbox entry", metadata: ["from": entry.from])
            }
        }
    }
}
