import ReactorHubEngine
import ReactorHubProtocol
import ReactorHubJSON
import Reactor

/// Taking the instance over (the lease was free) and sending actions to whoever owns it.
extension ReplicaInstance {
    /// Becomes the owner under `lease`: continues from the last committed version with the
    /// same epoch, or starts a new epoch (from the state this node holds) when Redis lost
    /// the instance's data; loads the action ids the former owner remembered.
    func takeOwnership(_ lease: Lease) async {
        do {
            var stored = try await node.store.load(addressText)
            let lostData = stored == nil || stored?.isComplete == false
            if lostData {
                let (state, version) = view.contents.withLock { ($0.state, $0.version) }
                let epoch = Epoch.make()
                let outcome = try await node.store.startEpoch(lease, epoch: epoch, version: version, state: Self.text(state))
                guard case .committed = outcome else { throw RedisError(.unexpectedReply, "start epoch: \(outcome)") }
                logger.info("Redis had lost the instance: a new epoch", metadata: ["epoch": epoch, "version": String(version)])
                stored = try await node.store.load(addressText)
            }
            guard let stored, let snapshot = stored.snapshot else { throw RedisError(.unexpectedReply, "nothing to take over") }
            var committed = try JSONParser().parse(snapshot.state)
            for entry in stored.tail {
                guard let patch = entry.patch else { continue }
                committed = try JSONPatch.apply(JSONParser().parse(patch), to: committed)
            }
            var state = try JSONValueDecoder().decode(R.State.self, from: committed)
            if let adjust { state = adjust(state) }
            let remembered = try await node.store.rememberedIDs(in: addressText)
            guard !ended.load(ordering: .relaxed) else {
                await node.release(lease)
                return
            }
            let log = RedisLog(
                address: addressText, lease: lease, epoch: stored.epoch, version: stored.version, snapshotVersion: snapshot.version,
                node: node, logger: logger, codec: context.codec
            ) { [weak self, node] in
                self?.leaseLost(lease)
                node.heartbeat.drop(lease)
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
            if lostData { events.yield(.reload) }
        } catch {
            logger.warning("could not take the instance over; lease released", metadata: ["error": "\(error)"])
            await node.release(lease)
        }
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
