import ReactorHubProtocol
import ReactorHubRedis
import ReactorHubJSON
import ReactorHubLocking
import ReactorHubLogging
import Reactor
import Synchronization
import ReactorHubWebSocketServer

/// A clustered instance as the hub sees it, on every node: a replica of the committed log
/// (state, version, history) that serves this node's subscribers, plus, on the one node
/// that holds the instance's lease, the runtime that applies actions (`OwnedRuntime`).
///
/// Every node, the owner too, delivers from the committed log only (the instance's channel,
/// gaps repaired from the stream), so the owner moving between nodes changes nothing for
/// subscribers: same epoch, same versions, same frames. Actions go to the owner: to its
/// runtime when it is here, through its inbox otherwise; their replies come back in the
/// log, before the patches they cause.
///
/// Threads: joins, leaves and dispatches come from the service thread and touch only
/// `view` (a lock) and the lanes (non-blocking yields); log entries are applied by one task
/// (`events`), actions forwarded by another (`forwards`), both serial.
final class ReplicaInstance<R: Reactor>: ClusterReplica, Sendable where R.Action: Decodable, R.State: Codable {
    struct View {
        var subscribers: [ConnectionOutput] = []
        var epoch = ""
        var version = 0
        var state: JSONValue = .object(JSONObject())
        var stateText: [UInt8]?
        var history: PatchHistory
        var position = LogPosition(version: 0, sequence: 0)
        /// Redis no longer holds the instance (it lost its data): no resume, until a new
        /// epoch is found.
        var stale = false
        var needsRepair = false
    }

    enum Event: Sendable {
        case entry(LogEntry)
        case repair
        case reload
    }

    enum Role: Sendable {
        case follower
        case owner(OwnedRuntime<R>)
    }

    let address: ReactorAddress
    let stream: StreamID
    let addressText: String
    let context: ReactorKind.InstanceContext
    let node: ClusterNode
    let make: @Sendable () -> R
    let adjust: (@Sendable (R.State) -> R.State)?
    let view: Locked<View>
    let role = Locked<Role>(.follower)
    let holder = Locked<String?>(nil)
    let taking = Atomic<Bool>(false)
    let ended = Atomic<Bool>(false)
    /// Read from Redis and applying entries (the node's sweeps wait for it).
    let started = Atomic<Bool>(false)
    let events = BatchLane<Event>()
    let forwards = BatchLane<ForwardedAction>()
    /// Who is here, on every node (PROTOCOL.md "Presence"; `ReplicaInstance+Presence`).
    let presence: PresenceRoom
    /// This node's presence changes on their way to Redis, in order.
    let presenceWrites = BatchLane<PresenceWrite>()
    /// The entries of other nodes' sessions held in `presence`.
    let remotePresence = Locked(RemotePresence())

    init(
        address: ReactorAddress, context: ReactorKind.InstanceContext, node: ClusterNode,
        make: @escaping @Sendable () -> R, adjust: (@Sendable (R.State) -> R.State)?
    ) {
        self.address = address
        self.stream = context.stream
        self.addressText = address.description
        self.context = context
        self.node = node
        self.make = make
        self.adjust = adjust
        self.view = Locked(View(history: PatchHistory(capacity: context.historyCapacity)))
        self.presence = PresenceRoom(maxListed: context.presenceMaxListed)
    }

    var logger: Logger { context.logger }

    // MARK: Start

    /// Subscribes, reads what Redis holds (creating the instance when nobody has), then
    /// starts applying live entries and takes the lease when it is free.
    func start() async throws(ProtocolError) {
        let deadline = ContinuousClock.now + node.options.lease * 2 + .seconds(3)
        // Registered first: entries published from now on queue in `events` while the
        // instance is read, and those the read already holds are skipped.
        node.register(self)
        // A link that is down (starting, or reconnecting) is waited for, up to the deadline.
        while true {
            do {
                try await node.subscriber.subscribe([node.store.channel(of: addressText)])
                break
            } catch {
                guard ContinuousClock.now < deadline else {
                    node.unregister(self)
                    node.subscriber.unsubscribe([node.store.channel(of: addressText)])
                    throw ProtocolError(.overloaded, "\(address) cannot be served now: the cluster link is down (\(error.message)); retry")
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        var created: Lease?
        while true {
            do {
                if let fetched = try await fetch() {
                    view.withLock { fetched.install(into: &$0) }
                    break
                }
                if created == nil, case .acquired(let lease) = try await node.leases.acquire(addressText) {
                    node.heartbeat.hold(lease)
                    let initial = try StateEncoding.encode(make().initialState).state
                    let outcome = try await node.store.startEpoch(lease, epoch: Epoch.make(), version: 0, state: Self.text(initial))
                    guard case .committed = outcome else { throw RedisError(.unexpectedReply, "start epoch: \(outcome)") }
                    created = lease
                    continue
                }
            } catch {
                logger.debug("instance not readable yet", metadata: ["error": "\(error)"])
            }
            guard ContinuousClock.now < deadline else {
                if let created { await node.release(created) }
                node.unregister(self)
                node.subscriber.unsubscribe([node.store.channel(of: addressText)])
                throw ProtocolError(.overloaded, "\(address) has no owner yet and could not be read from the cluster; retry")
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        // The other nodes' entries, before the first snapshot; notices queue meanwhile.
        await reconcilePresence()
        _ = presence.takeBroadcast(addressText)  // nobody has joined yet: the snapshots carry them
        started.store(true, ordering: .relaxed)
        Task { [self] in await applyLoop() }
        Task { [self] in await forwardLoop() }
        Task { [self] in await presenceWriteLoop() }
        if let created {
            await takeOwnership(created)
        } else {
            await sweep()
        }
    }

    static func text(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.writeValue(value)
        return writer.bytes
    }

    // MARK: HubInstance (service thread)

    var subscriberCount: Int {
        view.withLock { $0.subscribers.count }
    }

    var isIdle: Bool {
        if case .owner(let owned) = role.withLock({ $0 }) { return owned.isIdle }
        return true
    }

    var knownHolder: String? {
        holder.withLock { $0 }
    }

    var isOwned: Bool {
        if case .owner = role.withLock({ $0 }) { return true }
        return false
    }

    func join(_ output: ConnectionOutput, ref: Ref?, since: ClientMessage.ResumePoint?) {
        view.withLock { view in
            let wasSubscribed = view.subscribers.contains { $0 === output }
            if !wasSubscribed { view.subscribers.append(output) }
            if let since, !wasSubscribed, !view.stale, since.epoch == view.epoch, since.version <= view.version,
               let missed = view.history.frames(after: since.version, current: view.version)
            {
                let resumed = ServerMessage.resumed(
                    addressText, ref: ref, epoch: view.epoch, version: since.version, extra: presence.snapshotMembers()
                )
                context.delivery.send([Outgoing.snapshot(stream, resumed)] + missed.map { .patch(stream, $0) }, to: [output])
                context.metrics.resumes.increment("resumed")
                return
            }
            if since != nil { context.metrics.resumes.increment("snapshot") }
            context.metrics.snapshots.increment("join")
            context.delivery.send(.snapshot(stream, snapshot(&view, ref: ref)), to: output)
        }
    }

    @discardableResult
    func leave(_ id: ConnectionID) -> Bool {
        let left = view.withLock { view in
            guard let index = view.subscribers.firstIndex(where: { $0.id == id }) else { return false }
            view.subscribers.remove(at: index)
            return true
        }
        if left { clearPresence(of: id) }
        return left
    }

    func resync(_ id: ConnectionID) {
        view.withLock { view in
            guard let output = view.subscribers.first(where: { $0.id == id }) else { return }
            context.metrics.snapshots.increment("resync")
            context.delivery.send(.snapshot(stream, snapshot(&view, ref: nil)), to: output)
        }
    }

    func snapshot(_ view: inout View, ref: Ref?) -> OutboundMessage {
        let text: [UInt8]
        if let cached = view.stateText {
            text = cached
        } else {
            text = Self.text(view.state)
            view.stateText = text
        }
        return ServerMessage.snapshot(
            addressText, ref: ref, epoch: view.epoch, version: view.version, state: text, extra: presence.snapshotMembers()
        )
    }

    func dispatch(
        _ payload: JSONValue, from output: ConnectionOutput, id: String?, ref: Ref?, receivedAt: ContinuousClock.Instant
    ) -> ProtocolError? {
        do {
            _ = try ActionDecoder().decode(R.Action.self, from: payload)
        } catch {
            return ProtocolError(error, kind: address.kind)
        }
        let token = node.expectReply(PendingReplies.Entry(
            output: output, ref: ref, address: addressText, deadline: .now + node.replyTimeout
        ))
        forwards.yield(ForwardedAction(action: payload, id: id, ref: ref, replyTo: ReplyAddress(token: token, node: node.id)))
        return nil
    }

    func inspect(history: Int) -> InstanceInspection {
        view.withLock { view in
            InstanceInspection(
                epoch: view.epoch, version: view.version, subscribers: view.subscribers, state: view.state,
                history: view.history.last(history)
            )
        }
    }

    func retire() -> [ConnectionOutput] {
        view.withLock { view in
            defer { view.subscribers = [] }
            return view.subscribers
        }
    }

    /// Reset is refused with a cluster (`Hub+AdminAPI`); a replica adopting connections
    /// subscribes them and sends each a snapshot, as the in-memory instance does.
    func adopt(_ outputs: [ConnectionOutput]) {
        view.withLock { view in
            for output in outputs where !view.subscribers.contains(where: { $0 === output }) {
                view.subscribers.append(output)
                context.metrics.snapshots.increment("reset")
                context.delivery.send(.snapshot(stream, snapshot(&view, ref: nil)), to: output)
            }
        }
    }

    func waitUntilIdle() async {
        if case .owner(let owned) = role.withLock({ $0 }) { await owned.settle() }
    }

    func evicted() {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        node.unregister(self)
        node.subscriber.unsubscribe([node.store.channel(of: addressText)])
        events.finish()
        forwards.finish()
        presenceWrites.finish()
        Task { [self] in await handOver() }
    }

    // MARK: ClusterReplica (node)

    func received(_ entry: LogEntry) {
        events.yield(.entry(entry))
    }

    func linkRecovered() {
        events.yield(.repair)
        // Notices published while the link was down are lost: read the entries again.
        Task { [self] in await reconcilePresence() }
    }

    func accept(_ action: ForwardedAction) -> Bool {
        guard case .owner(let owned) = role.withLock({ $0 }) else { return false }
        owned.dispatch(action)
        return true
    }

    func forgetHolder() {
        holder.withLock { $0 = nil }
    }

    func leaseLost(_ lease: Lease) {
        let lost = role.withLock { role -> OwnedRuntime<R>? in
            guard case .owner(let owned) = role, owned.lease == lease else { return nil }
            role = .follower
            return owned
        }
        guard let lost else { return }
        lost.retire()
        holder.withLock { $0 = nil }
        logger.info("lost ownership", metadata: ["generation": String(lease.generation)])
    }

    func handOver() async {
        guard case .owner(let owned) = role.withLock({ $0 }) else { return }
        await owned.settle()
        await owned.handOver()
        role.withLock { role in
            if case .owner(let current) = role, current === owned { role = .follower }
        }
        holder.withLock { $0 = nil }
    }

    /// Periodic: reload a stale or broken replica, and take the lease when it is free.
    func sweep() async {
        guard started.load(ordering: .relaxed) else { return }
        // Other nodes' entries leave when their node stops renewing them (its lease).
        if remotePresence.withLock({ !$0.sessions.isEmpty }) { await reconcilePresence() }
        let (stale, needsRepair) = view.withLock { ($0.stale, $0.needsRepair) }
        if stale { events.yield(.reload) } else if needsRepair { events.yield(.repair) }
        guard !ended.load(ordering: .relaxed), !isOwned, !taking.exchange(true, ordering: .relaxed) else { return }
        defer { taking.store(false, ordering: .relaxed) }
        do {
            switch try await node.leases.acquire(addressText) {
            case .acquired(let lease):
                node.heartbeat.hold(lease)
                await takeOwnership(lease)
            case .held(let by):
                holder.withLock { $0 = by.node }
            }
        } catch {
            logger.debug("lease not checked", metadata: ["error": error.message])
        }
    }
}
