import JSON
import Reactor
import Transport

/// The serial-context side of an instance: answering actions, publishing state changes
/// in bursts, and (with durable acks) holding messages until the store has them.
extension ReactorInstance {
    /// Answers an action once `mutate` accepted or refused it, before any of its
    /// mutations is reduced (so the ack precedes the patches it causes).
    func answer(_ outcome: ActionOutcome, to id: ConnectionID, ref: JSONValue?) {
        switch outcome {
        case .accepted:
            guard let ref else { return }
            let ack = ServerMessage.ack(addressText, ref: ref, version: published.version)
            // With durable acks, the ack waits for the action's synchronous effects
            // (settled when the runtime drains) to be on disk.
            deliver(ack, to: .one(id), requiredVersion: nil)
        case .refused(let refusal):
            deliver(ServerMessage.error(ProtocolError(.invalidAction, refusal.message), ref: ref), to: .one(id), requiredVersion: published.version)
        case .failed(let message):
            logger.error("action failed", metadata: ["session": id.description, "error": message])
            deliver(
                ServerMessage.error(ProtocolError(.internal, "the action failed: \(message)"), ref: ref),
                to: .one(id),
                requiredVersion: published.version
            )
        }
    }

    /// Encodes and diffs a new state once, then posts the same patch frame and pulse
    /// frames to every subscriber. Equal states send nothing.
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
        publishChange(from: published.state, to: encoded.state, pulses: pulses)
    }

    /// Records one change of the current burst: its own patch frame (kept in the history
    /// and the store) and its pulses. The burst leaves in `flushBurst`.
    func publishChange(from old: JSONValue, to new: JSONValue, pulses: [(name: String, value: JSONValue)] = []) {
        let operations = JSONPatch.diff(from: old, to: new)
        guard !operations.isEmpty || !pulses.isEmpty else { return }
        if !operations.isEmpty {
            published.version += 1
            published.state = new
            var writer = JSONWriter()
            writer.writePatch(operations)
            let frame = ServerMessage.patch(
                addressText, version: published.version, base: published.version - 1, operations: writer.bytes, stream: stream
            )
            published.batch.append((published.version, frame, writer.bytes))
            published.inOrder.append(frame)
            context.store.record(StoredChange(
                address: address,
                epoch: epoch,
                version: published.version,
                state: new,
                patch: StoredPatch(version: published.version, frame: frame.withBytes { Array($0) }),
                keepPatches: context.historyCapacity
            ))
        }
        let version = published.version
        for pulse in pulses {
            let frame = ServerMessage.pulse(addressText, version: version, name: pulse.name, value: pulse.value, stream: stream)
            published.inOrder.append(frame)
        }
    }

    /// Bursts of more changes than this leave as one frame.
    static var coalescingThreshold: Int { 8 }

    /// Hands the burst (the changes of one drain of the runtime) to the transport, encoded
    /// once for every subscriber, then the burst's pulses. A short burst leaves as one
    /// frame per version, as clients watching a single action expect; a long one (only
    /// under load) leaves as one frame spanning all its versions, with `base`, which
    /// turns many small frames into one larger one for every subscriber.
    func flushBurst() {
        guard !published.inOrder.isEmpty else { return }
        let batch = published.batch
        var frames = published.inOrder
        published.batch = []
        published.inOrder = []
        let version = published.version
        let state = published.state
        if batch.count > Self.coalescingThreshold {
            let pulses = frames.filter { if case .event = $0.kind { true } else { false } }
            frames = combine(batch) + pulses
        }
        shared.withLock { shared in
            if !batch.isEmpty {
                shared.version = version
                shared.state = state
                shared.stateText = nil
                for change in batch {
                    shared.history.append(change.frame, version: change.version)
                }
            }
            let subscribers = shared.subscribers
            for frame in frames {
                deliver(frame, to: .many(subscribers), requiredVersion: version)
            }
        }
        if !batch.isEmpty, gated {
            waitForDurability(of: version)
        }
    }

    /// The burst's changes as frames spanning several versions each (with `base`), each
    /// frame's operations kept under `coalescingLimit` bytes.
    private func combine(_ batch: [(version: Int, frame: OutboundMessage, operations: [UInt8])]) -> [OutboundMessage] {
        var frames: [OutboundMessage] = []
        var start = 0
        while start < batch.count {
            var end = start + 1
            var size = batch[start].operations.count
            while end < batch.count, size + batch[end].operations.count <= context.coalescingLimit {
                size += batch[end].operations.count
                end += 1
            }
            let chunk = batch[start..<end]
            if chunk.count == 1 {
                frames.append(chunk[start].frame)
            } else {
                frames.append(ServerMessage.patch(
                    addressText, version: chunk.last!.version, base: chunk.first!.version - 1,
                    operations: PatchParts.concatenate(chunk.map(\.operations)), stream: stream
                ))
            }
            start = end
        }
        return frames
    }

    /// Sends now, or through the gate when acks must be durable: with durable acks,
    /// nothing that reveals a version (an ack, a patch, a snapshot) leaves before that
    /// version is on disk, so that a crash never loses a version a client has seen.
    func deliver(_ message: OutboundMessage, to recipients: DeliveryGate.Recipients, requiredVersion: Int?) {
        guard gated else {
            send(message, to: recipients)
            return
        }
        // Items are sent while the gate is held, so releases from two threads (this one
        // and the store's) cannot overtake each other.
        gate.withLock { gate in
            gate.enqueue(message, to: recipients, requiredVersion: requiredVersion)
            for item in gate.release(durable: gate.durableVersion) {
                send(item.message, to: item.recipients)
            }
        }
    }

    private func send(_ message: OutboundMessage, to recipients: DeliveryGate.Recipients) {
        switch recipients {
        case .one(let id): context.channel.send(message, to: id)
        case .many(let ids): context.channel.send(message, to: ids)
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
                    self.send(item.message, to: item.recipients)
                }
            }
        }
    }
}
