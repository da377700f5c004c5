import JSON
import Reactor
import Transport

/// The serial-context side of an instance: answering actions, publishing state changes
/// in bursts, and (with durable acks) holding messages until the store has them.
extension ReactorInstance {
    /// Answers an action once `mutate` accepted or refused it, before any of its
    /// mutations is reduced (so the ack precedes the patches it causes).
    func answer(
        _ outcome: ActionOutcome, to output: ConnectionOutput, id: String? = nil, ref: Ref?, receivedAt: ContinuousClock.Instant
    ) {
        defer { context.metrics.actionSeconds.observe(.now - receivedAt) }
        let reply: OutboundMessage?
        let required: Int?
        switch outcome {
        case .accepted:
            context.metrics.action(address.kind, "accepted")
            // With durable acks, the ack waits for the action's synchronous effects
            // (settled when the runtime drains) to be on disk.
            reply = ref != nil || id != nil ? ServerMessage.ack(addressText, ref: ref, version: published.version) : nil
            required = nil
            if ref == nil { break }
            deliver([.reply(reply!)], to: .one(output), requiredVersion: required)
        case .refused(let refusal):
            context.metrics.action(address.kind, "refused")
            context.metrics.errors.increment("invalid_action")
            reply = ServerMessage.error(ProtocolError(.invalidAction, refusal.message), ref: ref)
            required = published.version
            deliver([.reply(reply!)], to: .one(output), requiredVersion: required)
        case .withdrawn:
            // Its connection is gone (the reply goes nowhere), or the hub drains. Never
            // applied: its id is forgotten (a resend may be applied), and the resends
            // waiting for it get the same answer.
            context.metrics.action(address.kind, "refused")
            var targets: [(output: ConnectionOutput, ref: Ref?)] = [(output, ref)]
            if let id { targets += actionIDs.withLock { $0.abandon(id) }.map { ($0.output, $0.ref) } }
            for target in targets where target.ref != nil {
                context.metrics.errors.increment("overloaded")
                let error = ServerMessage.error(
                    ProtocolError(.overloaded, "the server is shutting down and takes no new actions; retry on another server or later"),
                    ref: target.ref
                )
                deliver([.reply(error)], to: .one(target.output), requiredVersion: published.version)
            }
            return
        case .failed(let message):
            context.metrics.action(address.kind, "refused")
            context.metrics.errors.increment("internal")
            logger.error("action failed", metadata: ["session": output.id.description, "error": message])
            reply = ServerMessage.error(ProtocolError(.internal, "the action failed: \(message)"), ref: ref)
            required = published.version
            deliver([.reply(reply!)], to: .one(output), requiredVersion: required)
        }
        if let id, let reply {
            let bytes = reply.withBytes { Array($0) }
            let waiters = actionIDs.withLock { $0.answer(id, reply: bytes, now: .now) }
            for waiter in waiters {
                sendDuplicate(bytes, to: waiter, requiredVersion: required)
            }
        }
    }

    /// Sends the remembered `reply` again to a resend of its action id, as a duplicate.
    /// `requiredVersion` nil: the ack of a pending action (released with its effects).
    func sendDuplicate(_ reply: [UInt8], to waiter: IDWaiter, requiredVersion: Int?) {
        guard let message = DuplicateReply.message(from: reply, ref: waiter.ref) else { return }
        deliver([.reply(message)], to: .one(waiter.output), requiredVersion: requiredVersion)
    }

    /// Encodes and diffs a new state once; the burst's frames leave in `flushBurst`.
    /// Equal states send nothing.
    func publish(_ state: R.State) {
        let encoded: StateEncoding.Encoded
        do {
            encoded = try StateEncoding.encode(state)
        } catch {
            logger.error("state could not be encoded; change not published", metadata: ["error": "\(error)"])
            return
        }
        var pulses: [(name: String, value: JSONValue)] = []
        for pulse in encoded.pulses where published.pulseCounts[pulse.name] != pulse.updateCount {
            published.pulseCounts[pulse.name] = pulse.updateCount
            do {
                pulses.append((pulse.name, try pulse.encodedValue()))
            } catch {
                logger.error("pulse value could not be encoded; pulse not sent", metadata: ["pulse": pulse.name, "error": "\(error)"])
            }
        }
        publishChange(from: published.state, to: encoded.state, pulses: pulses, patch: encoded.patch)
    }

    /// Records one change of the current burst: its own patch frame (kept in the history
    /// and the store) and its pulses. The burst leaves in `flushBurst`. `patch`: the
    /// operations that made `new`, used instead of a diff when they apply to `old` itself.
    func publishChange(
        from old: JSONValue, to new: JSONValue, pulses: [(name: String, value: JSONValue)] = [], patch: JSONPatch.Step? = nil
    ) {
        guard !retired.load(ordering: .relaxed) else { return }
        // Compared as text: a change from 1 to 1.0 is a change, so that a snapshot and
        // the copies subscribers patched are always written the same (docs/protocol.md).
        let operations = patch?.operations(from: old) ?? JSONPatch.diff(from: old, to: new, equality: .text)
        guard !operations.isEmpty || !pulses.isEmpty else { return }
        if !operations.isEmpty {
            published.version += 1
            published.state = new
            var writer = JSONWriter()
            writer.writePatch(operations)
            let frame = PatchFrame(address: addressText, version: published.version, base: published.version - 1, operations: writer.bytes)
            published.batch.append(frame)
            published.inOrder.append(.patch(stream, frame))
            context.store.record(StoredChange(
                address: address,
                epoch: epoch,
                version: published.version,
                state: new,
                patch: StoredPatch(version: published.version, frame: frame.message.withBytes { Array($0) }),
                keepPatches: context.historyCapacity,
                keepBytes: context.historyBytes
            ))
        }
        let version = published.version
        for pulse in pulses {
            let frame = ServerMessage.pulse(addressText, version: version, name: pulse.name, value: pulse.value)
            published.inOrder.append(.pulse(stream, frame))
        }
    }

    /// Bursts of more changes than this leave as frames spanning several versions.
    static var coalescingThreshold: Int { 8 }

    /// Hands the burst (the changes of one drain of the runtime) to delivery, encoded once
    /// for every subscriber, then the burst's pulses. A short burst leaves as one frame
    /// per version, as clients watching a single action expect; a long one (only under
    /// load) leaves as frames spanning several versions each, with `base`, which turns
    /// many small frames into a few larger ones for every subscriber.
    func flushBurst() {
        guard !published.inOrder.isEmpty else { return }
        let batch = published.batch
        var entries = published.inOrder
        published.batch = []
        published.inOrder = []
        let version = published.version
        let state = published.state
        if batch.count > Self.coalescingThreshold {
            let pulses = entries.filter { if case .pulse = $0 { true } else { false } }
            entries = combine(batch).map { .patch(stream, $0) } + pulses
        }
        shared.withLock { shared in
            if !batch.isEmpty {
                shared.version = version
                shared.state = state
                shared.stateText = nil
                for frame in batch {
                    shared.history.append(frame)
                }
            }
            deliver(entries, to: .many(shared.subscribers), requiredVersion: version)
        }
        if !batch.isEmpty, gated {
            waitForDurability(of: version)
        }
    }

    /// The burst's frames combined into frames spanning several versions each, each one's
    /// size kept under delivery's merged-frame limit.
    private func combine(_ batch: [PatchFrame]) -> [PatchFrame] {
        let limit = context.delivery.limits.mergedFrameBytes
        var frames: [PatchFrame] = []
        var start = 0
        while start < batch.count {
            var end = start + 1
            var size = batch[start].operationsCount
            while end < batch.count, size + batch[end].operationsCount <= limit {
                size += batch[end].operationsCount
                end += 1
            }
            frames.append(PatchFrame.merge(batch[start..<end]))
            start = end
        }
        return frames
    }

    /// Sends now, or through the gate when acks must be durable: with durable acks,
    /// nothing that reveals a version (an ack, a patch, a snapshot) leaves before that
    /// version is on disk, so that a crash never loses a version a client has seen.
    func deliver(_ entries: [Outgoing], to recipients: DeliveryGate.Recipients, requiredVersion: Int?) {
        guard gated else {
            send(entries, to: recipients)
            return
        }
        // Items are sent while the gate is held, so releases from two threads (this one
        // and the store's) cannot overtake each other.
        gate.withLock { gate in
            gate.enqueue(entries, to: recipients, requiredVersion: requiredVersion)
            for item in gate.release(durable: gate.durableVersion) {
                send(item.entries, to: item.recipients)
            }
        }
    }

    private func send(_ entries: [Outgoing], to recipients: DeliveryGate.Recipients) {
        switch recipients {
        case .one(let output):
            if entries.count == 1 {
                context.delivery.send(entries[0], to: output)
            } else {
                context.delivery.send(entries, to: [output])
            }
        case .many(let outputs):
            context.delivery.send(entries, to: outputs)
        }
    }

    func settlePendingAcks() {
        guard gated else { return }
        let version = published.version
        let settled = gate.withLock { $0.settlePendingAcks(at: version) }
        if settled {
            waitForDurability(of: version)
        }
    }

    private func waitForDurability(of version: Int) {
        context.store.whenDurable(address, version: version) { [weak self] in
            guard let self else { return }
            self.gate.withLock { gate in
                for item in gate.release(durable: version) {
                    self.send(item.entries, to: item.recipients)
                }
            }
        }
    }
}
