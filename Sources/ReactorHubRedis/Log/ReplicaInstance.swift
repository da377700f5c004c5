import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLocking
import ReactorHubLogging
import ReactorHubProtocol
import Reactor
import Synchronization

/// A clustered instance as the hub sees it, on every node: the engine's one view, fed by
/// the committed entries of the instance's Redis log (its channel, gaps repaired from the
/// stream), plus, on the one node that holds the lease, the engine's one owner writing to
/// that log (`RedisLog`). What is left here is the cluster's own part: reading the log,
/// leases, forwarding actions to the owner, and presence across nodes.
///
/// Threads: joins, leaves and dispatches come from the service thread and touch only the
/// view (a lock) and the lanes (non-blocking yields); log entries are applied by one task
/// (`events`), actions forwarded by another (`forwards`), both serial.
final class ReplicaInstance<R: Reactor>: ClusterReplica, ViewedInstance, Sendable where R.Action: Decodable, R.State: Codable {
    enum Event: Sendable {
        case entry(LogEntry)
        /// Read what was missed from the stream; then run the callback, if any.
        case repair((@Sendable () -> Void)?)
        case reload
    }

    enum Role: Sendable {
        case follower
        case owner(InstanceOwner<R>, RedisLog)
    }

    let view: InstanceView
    let addressText: String
    let context: ReactorKind.InstanceContext
    let node: ClusterNode
    let make: @Sendable () -> R
    let adjust: (@Sendable (R.State) -> R.State)?
    let role = Locked<Role>(.follower)
    let holder = Locked<String?>(nil)
    /// The last log entry applied (the apply task's; read by repairs).
    let position = Locked(LogPosition(version: 0, sequence: 0))
    /// A read from Redis failed: the next sweep repairs.
    let needsRepair = Atomic<Bool>(false)
    let taking = Atomic<Bool>(false)
    /// A released lease was heard: the next attempt to take it must not be skipped.
    let retake = Atomic<Bool>(false)
    let ended = Atomic<Bool>(false)
    /// Read from Redis and applying entries (the node's sweeps wait for it).
    let started = Atomic<Bool>(false)
    let events = BatchLane<Event>()
    let forwards = BatchLane<ForwardedAction>()
    /// This node's presence changes on their way to Redis, in order.
    let presenceWrites = BatchLane<PresenceWrite>()
    /// The entries of other nodes' sessions held in the view's presence room.
    let remotePresence = Locked(RemotePresence())
    /// Who joined here, for the reactor's joins and leaves (sent to the owner).
    let members = Members()
    /// A reactor of the kind for its own join rule (it runs no action).
    let rules: R

    init(
        address: ReactorAddress, context: ReactorKind.InstanceContext, node: ClusterNode,
        make: @escaping @Sendable () -> R, adjust: (@Sendable (R.State) -> R.State)?
    ) {
        self.addressText = address.description
        self.context = context
        self.node = node
        self.make = make
        self.adjust = adjust
        self.rules = make()
        self.view = InstanceView(
            address: address, context: context, start: .init(epoch: "", version: 0, state: .object(JSONObject()))
        ) { [node] to in
            to.node == node.id ? node.takeReply(to.token)?.output : nil
        }
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
                    throw ProtocolError(.overloaded, "\(view.address) cannot be served now: Redis is unreachable (\(error.message)); retry")
                }
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        var created: Lease?
        var lastError: (any Error)?
        while true {
            do {
                if let fetched = try await fetch() {
                    install(fetched)
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
                lastError = error
                logger.debug("instance not readable yet", metadata: ["error": "\(error)"])
            }
            guard ContinuousClock.now < deadline else {
                if let created { await node.release(created) }
                node.unregister(self)
                node.subscriber.unsubscribe([node.store.channel(of: addressText)])
                if let redisError = lastError as? RedisError, redisError.code != .reply {
                    throw ProtocolError(.overloaded, "\(view.address) cannot be read: Redis is unreachable (\(redisError.message)); retry")
                }
                throw ProtocolError(.overloaded, "\(view.address) has no owner yet and could not be read from the cluster; retry")
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        // The other nodes' entries, before the first snapshot; notices queue meanwhile.
        await reconcilePresence()
        _ = view.presence.takeBroadcast()  // nobody has joined yet: the snapshots carry them
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

    var isIdle: Bool {
        if case .owner(let owner, _) = role.withLock({ $0 }) { return owner.isIdle }
        return true
    }

    var knownHolder: String? {
        holder.withLock { $0 }
    }

    var isOwned: Bool {
        if case .owner = role.withLock({ $0 }) { return true }
        return false
    }

    var isOwner: Bool { isOwned }

    func join(_ output: ConnectionOutput, ref: Ref?, since: ClientMessage.ResumePoint?, checksums: Bool, sender: Sender) -> ProtocolError? {
        let view = self.view
        if let refusal = JoinRule.refusal(by: rules, of: sender, state: { view.committedState }) {
            return refusal
        }
        if view.join(output, ref: ref, since: since, checksums: checksums), members.join(output.id, sender) != nil {
            forwardMembership(.joined, sender)
        }
        return nil
    }

    @discardableResult
    func leave(_ id: ConnectionID) -> Bool {
        let left = view.leave(id)
        if left { clearPresence(of: id) }
        if let membership = members.leave(id) { forwardMembership(.left, membership.member) }
        return left
    }

    /// Sends a join or a leave to the owner, in order with the actions (no reply).
    private func forwardMembership(_ change: Membership.Change, _ sender: Sender) {
        forwards.yield(ForwardedAction(
            action: .null, id: nil, ref: nil, replyTo: ReplyAddress(token: 0, node: node.id), sender: sender, membership: change
        ))
    }

    func dispatch(
        _ payload: ActionPayload, from output: ConnectionOutput, sender: Sender, id: String?, ref: Ref?, receivedAt: ContinuousClock.Instant
    ) -> ProtocolError? {
        do {
            _ = try ActionDecoder().decode(R.Action.self, from: payload)
        } catch {
            return ProtocolError(error, kind: view.address.kind)
        }
        let token = node.expectReply(PendingReplies.Entry(
            output: output, ref: ref, address: addressText, deadline: .now + node.replyTimeout
        ))
        forwards.yield(ForwardedAction(action: payload.value, id: id, ref: ref, replyTo: ReplyAddress(token: token, node: node.id), sender: sender))
        return nil
    }

    func retire() -> [Subscriber] {
        view.retire()
    }

    /// The view applies what it has queued, then reads the log from Redis after its last
    /// entry (what is confirmed there: an answer given anywhere was confirmed first); a
    /// gone instance, or one that stopped applying, runs `then` at once.
    func catchUp(then: @escaping @Sendable () -> Void) {
        guard started.load(ordering: .relaxed), events.yield(.repair(then)) else { return then() }
    }

    func waitUntilIdle() async {
        if case .owner(let owner, let log) = role.withLock({ $0 }) {
            await owner.waitUntilIdle()
            await log.settle()
        }
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

    func linkRecovered(done: @escaping @Sendable () -> Void) {
        if !events.yield(.repair(done)) { done() }
        // Notices published while the link was down are lost: read the entries again.
        Task { [self] in await reconcilePresence() }
    }

    func accept(_ action: ForwardedAction) -> Bool {
        guard case .owner(let owner, _) = role.withLock({ $0 }) else { return false }
        apply(action, on: owner)
        return true
    }

    /// Hands a forwarded action to the owner here; one that no longer decodes is refused.
    func apply(_ action: ForwardedAction, on owner: InstanceOwner<R>) {
        if let change = action.membership, let member = action.sender {
            return owner.send(Membership(change, member))
        }
        let sender = InstanceOwner<R>.Origin(
            target: .node(action.replyTo), ref: action.ref, sender: action.sender, action: context.events == nil ? nil : action.action
        )
        do throws(ActionDecodingError) {
            var name = ""
            let decoded = try ActionDecoder().decode(R.Action.self, from: ActionPayload(action.action), name: &name)
            owner.dispatch(decoded, from: sender, id: action.id, label: context.actionLabels.label(named: name))
        } catch {
            context.metrics.action(view.address.kind, "refused")
            owner.log.appendReply(LoggedReply(message: context.codec.error(ProtocolError(error, kind: view.address.kind), ref: action.ref), to: sender.target))
        }
    }

    func masterMoved() {
        if case .owner(_, let log) = role.withLock({ $0 }) { log.verify() }
    }

    func forgetHolder() {
        holder.withLock { $0 = nil }
    }

    func leaseReleased() {
        guard !isOwned else { return }
        forgetHolder()
        retake.store(true, ordering: .sequentiallyConsistent)
        Task { [self] in await sweep() }
    }

    func leaseLost(_ lease: Lease) {
        let lost = role.withLock { role -> (InstanceOwner<R>, RedisLog)? in
            guard case .owner(let owner, let log) = role, log.lease == lease else { return nil }
            role = .follower
            return (owner, log)
        }
        guard let (owner, log) = lost else { return }
        owner.retire()
        log.retire()
        holder.withLock { $0 = nil }
        logger.info("lost ownership", metadata: ["generation": String(lease.generation)])
    }

    /// Commits what the owner has queued, writes a snapshot and releases the lease.
    func handOver() async {
        guard case .owner(let owner, let log) = role.withLock({ $0 }) else { return }
        await owner.waitUntilIdle()
        await log.handOver()
        owner.retire()
        role.withLock { role in
            if case .owner(let current, _) = role, current === owner { role = .follower }
        }
        holder.withLock { $0 = nil }
    }

    /// Periodic: reload a stale or broken replica, and take the lease when it is free.
    func sweep() async {
        guard started.load(ordering: .relaxed) else { return }
        // Other nodes' entries leave when their node stops renewing them (its lease).
        if remotePresence.withLock({ !$0.sessions.isEmpty }) { await reconcilePresence() }
        if view.isStale { events.yield(.reload) } else if needsRepair.load(ordering: .relaxed) { events.yield(.repair(nil)) }
        // One attempt at a time; a release heard while one runs is tried again after it
        // (`retake` is set before the notice's own sweep tries `taking`, and read after an
        // attempt lets go of it: one of the two sees the other).
        // A draining node takes nothing: it would hold the lease past its own stop (it hears
        // the release of its own hand-over like any other node).
        while !ended.load(ordering: .sequentiallyConsistent), !node.isDraining, !isOwned,
            !taking.exchange(true, ordering: .sequentiallyConsistent)
        {
            retake.store(false, ordering: .sequentiallyConsistent)
            await tryToTakeTheLease()
            taking.store(false, ordering: .sequentiallyConsistent)
            guard retake.load(ordering: .sequentiallyConsistent) else { return }
        }
    }

    private func tryToTakeTheLease() async {
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
