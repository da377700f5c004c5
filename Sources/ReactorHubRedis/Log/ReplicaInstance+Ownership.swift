import ReactorHubEngine
import ReactorHubProtocol
import ReactorHubJSON
import Reactor

/// Taking the instance over (the lease was free) and sending actions to whoever owns it.
extension ReplicaInstance {
    /// Becomes the owner under `lease`: continues from the last committed version with the
    /// same epoch; or starts a new epoch when Redis lost the instance's data (from the state
    /// this node holds) or failed over since the epoch began (from the state the new master
    /// holds: the epoch's last writes may be missing there, and what clients saw of them must
    /// not be continued differently under the same epoch). Loads the action ids the former
    /// owner remembered.
    func takeOwnership(_ lease: Lease) async {
        do {
            var stored = try await node.store.load(addressText)
            let lostData = stored == nil || stored?.isComplete == false
            let failedOver = stored?.isFromAnotherLine == true
            if lostData || failedOver {
                var (state, version) = view.contents.withLock { ($0.state, $0.version) }
                if !lostData, let stored {
                    (state, version) = (try Self.state(of: stored), stored.version)
                }
                let epoch = Epoch.make()
                let outcome = try await node.store.startEpoch(lease, epoch: epoch, version: version, state: Self.text(state))
                guard case .committed = outcome else { throw RedisError(.unexpectedReply, "start epoch: \(outcome)") }
                logger.info(
                    lostData ? "Redis had lost the instance: a new epoch" : "Redis failed over: a new epoch from what the new master holds",
                    metadata: ["epoch": epoch, "version": String(version), "former": stored?.epoch ?? "-"]
                )
                stored = try await node.store.load(addressText)
            }
            guard let stored, stored.snapshot != nil else { throw RedisError(.unexpectedReply, "nothing to take over") }
            let committed = try Self.state(of: stored)
            var state = try JSONValueDecoder().decode(R.State.self, from: committed)
            if let adjust { state = adjust(state) }
            let remembered = try await node.store.rememberedIDs(in: addressText)
            guard !ended.load(ordering: .relaxed), !node.isDraining else {
                await node.release(lease)
                return
            }
            let log = RedisLog(
                address: addressText, lease: lease, epoch: stored.epoch, version: stored.version,
                snapshotVersion: stored.snapshot?.version ?? stored.version, unconfirmed: stored.hasUnconfirmed,
                node: node, logger: logger, codec: context.codec
            ) { [weak self, node] ending in
                self?.leaseLost(lease)
                node.heartbeat.drop(lease)
                if case .failedOver = ending, let self {
                    // Taken again at once: the new owner (this node, most likely) starts the
                    // new epoch from what the new master holds, under a fresh generation.
                    Task {
                        await node.release(lease)
                        await self.sweep()
                    }
                }
            }
            let owner = InstanceOwner(
                address: view.address, reactor: make(), restored: state, committed: committed, version: stored.version,
                context: context, log: log
            )
            owner.remember(remembered.map { ($0.id, $0.reply, $0.age) })
            // Started before any action can reach it: no change may go unpublished.
            try owner.start()
            role.withLock { $0 = .owner(owner, log) }
            holder.withLock { $0 = node.id }
            node.metrics.ownerships.increment()
            logger.info(
                "owning the instance",
                metadata: ["epoch": stored.epoch, "version": String(stored.version), "generation": String(lease.generation)]
            )
            if lostData || failedOver { events.yield(.reload) }
        } catch {
            logger.warning("could not take the instance over; lease released", metadata: ["error": "\(error)"])
            await node.release(lease)
        }
    }

    /// The state at `stored.version`: the snapshot with every patch of the log after it.
    static func state(of stored: InstanceRecord) throws -> JSONValue {
        guard let snapshot = stored.snapshot else { throw RedisError(.unexpectedReply, "no snapshot to start from") }
        var state = try JSONParser().parse(snapshot.state)
        for entry in stored.tail {
            guard let patch = entry.patch else { continue }
            state = try JSONPatch.apply(JSONParser().parse(patch), to: state)
        }
        return state
    }

    /// Sends each action, in arrival order, to the owner: its runtime here, or its inbox.
    func forwardLoop() async {
        while let actions = await forwards.next() {
            if case .owner(let owner, _) = role.withLock({ $0 }) {
                for action in actions { apply(action, on: owner) }
                continue
            }
            await forward(actions)
        }
    }

    /// Posts a run of actions to the owner's inbox in one entry, in their order.
    private func forward(_ actions: [ForwardedAction]) async {
        for attempt in 0..<2 {
            var owner = holder.withLock { $0 }
            if owner == nil || attempt > 0 {
                owner = (try? await node.leases.holder(of: addressText))?.node
                holder.withLock { $0 = owner }
            }
            guard let owner, owner != node.id else {
                // Nobody holds the lease (released at a hand-over, or lapsed): try to take
                // it now rather than at the next sweep; this action is answered overloaded.
                if owner == nil { Task { await self.sweep() } }
                break
            }
            if acceptAll(actions) { return }
            if (try? await node.inbox.post(to: owner, instance: addressText, payload: InboxMessage.actions(actions).bytes)) == true {
                for action in actions { node.posted(action.replyTo.token, to: owner) }
                node.metrics.forwarded.increment(by: actions.filter { $0.membership == nil }.count)
                return
            }
            holder.withLock { $0 = nil }
        }
        if acceptAll(actions) { return }
        let reason = node.unavailableReason == nil
            ? "\(view.address) has no owner yet (a node is taking it over); retry"
            : "\(view.address) cannot take actions now: this node's link to Redis is down; retry"
        for action in actions {
            node.answer(action.replyTo, context.codec.error(ProtocolError(.overloaded, reason), ref: action.ref).withBytes { Array($0) })
        }
    }

    private func acceptAll(_ actions: [ForwardedAction]) -> Bool {
        guard case .owner(let owner, _) = role.withLock({ $0 }) else { return false }
        for action in actions { apply(action, on: owner) }
        return true
    }
}
