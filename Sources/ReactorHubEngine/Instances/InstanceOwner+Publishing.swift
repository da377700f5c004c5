package import ReactorHubJSON
import ReactorHubProtocol
package import Reactor

/// The serial-context side of an owner: answering actions and turning states into the
/// records of a burst.
extension InstanceOwner {
    /// Called right after `mutate` accepted or refused the action, before any of its
    /// mutations is reduced: a refusal takes its place in the burst now; an accepted
    /// action's ack waits for `applied`, at the place it would have had.
    package func answer(_ outcome: ActionOutcome, to sender: Origin, id: String?) {
        context.metrics.actionSeconds.observe(.now - sender.receivedAt)
        if sender.connection != nil {
            pendingActions.subtract(1, ordering: .relaxed)
            context.load.taken()
        }
        let reply: OutboundMessage
        switch outcome {
        case .accepted:
            context.metrics.action(address.kind, "accepted")
            accepting = Accepting(index: burst.count, version: published.version)
            return
        case .refused(let refusal):
            let code: ProtocolError.Code = refusal.code == .forbidden ? .forbidden : .invalidAction
            context.metrics.action(address.kind, "refused")
            context.metrics.errors.increment(code.rawValue)
            reply = context.codec.error(ProtocolError(code, refusal.message), ref: sender.ref)
        case .failed(let message):
            context.metrics.action(address.kind, "refused")
            context.metrics.errors.increment("internal")
            logger.error("action failed", metadata: ["error": message])
            reply = context.codec.error(ProtocolError(.internal, "the action failed: \(message)"), ref: sender.ref)
        case .withdrawn:
            // Its connection is gone (the reply goes nowhere), or the hub drains. Never
            // applied: its id is forgotten (a resend may be applied), and the resends
            // waiting for it get the same answer.
            context.metrics.action(address.kind, "refused")
            var targets = [sender]
            if let id { targets += actionIDs.withLock { $0.abandon(id) } }
            for target in targets {
                context.metrics.errors.increment("overloaded")
                let refusal = context.codec.error(
                    ProtocolError(.overloaded, "the server is shutting down and takes no new actions; retry on another server or later"),
                    ref: target.ref
                )
                burst.append(.reply(LoggedReply(message: refusal, to: target.target)))
            }
            return
        }
        burst.append(.reply(LoggedReply(message: reply, to: sender.target, actionID: id)))
        remember(reply, for: id)
    }

    /// Called once the accepted action's immediate mutations are reduced: its ack says the
    /// version before it and the version that first includes it (`applied`), and goes
    /// before the patches it caused (riding in the first one's record).
    package func applied(_ sender: Origin, id: String?) {
        guard let accepted = accepting else { return }
        accepting = nil
        let ack = context.codec.ack(addressText, ref: sender.ref, version: accepted.version, applied: published.version)
        if let events = context.events, let action = sender.action {
            events.emit(.action, in: address) {
                .action(address, user: sender.sender?.user, action: action.actionObjectForm, version: accepted.version, applied: published.version)
            }
        }
        let reply = LoggedReply(message: ack, to: sender.ref == nil ? nil : sender.target, actionID: id)
        if sender.ref != nil || id != nil {
            if accepted.index < burst.count, case .patch(let frame, let state, nil) = burst[accepted.index] {
                burst[accepted.index] = .patch(frame, state: state, reply: reply)
            } else {
                burst.insert(.reply(reply), at: accepted.index)
            }
        }
        remember(ack, for: id)
    }

    /// Remembers `reply` as the answer to `id`, and sends it to the resends that waited.
    private func remember(_ reply: OutboundMessage, for id: String?) {
        guard let id else { return }
        let bytes = reply.withBytes { Array($0) }
        let waiters = actionIDs.withLock { $0.answer(id, reply: bytes, now: .now) }
        for waiter in waiters {
            if let message = context.codec.duplicate(of: bytes, ref: waiter.ref) {
                burst.append(.reply(LoggedReply(message: message, to: waiter.target)))
            }
        }
    }

    /// Encodes and diffs a new state once; equal states produce nothing.
    package func publish(_ state: R.State) {
        let encoded: StateEncoding.Encoded
        do {
            encoded = try stateForm.encode(state)
        } catch {
            logger.error("state could not be encoded; change not published", metadata: ["error": "\(error)"])
            return
        }
        var pulses: [(name: String, value: JSONValue)] = []
        for pulse in encoded.pulses where published.pulseCounts.update(pulse.name, to: pulse.updateCount) {
            do {
                pulses.append((pulse.name, try StateEncoding.encodedValue(of: pulse)))
            } catch {
                logger.error("pulse value could not be encoded; pulse not sent", metadata: ["pulse": pulse.name, "error": "\(error)"])
            }
        }
        publishChange(from: published.state, to: encoded.state, pulses: pulses, patch: encoded.patch)
    }

    /// Records one change in the burst: its own patch frame, then its pulses. `patch`: the
    /// operations that made `new` (the doc kind's edit), sent instead of a diff when they
    /// apply to `old` itself: an edit then costs what it changed, not the document's size.
    package func publishChange(
        from old: JSONValue, to new: JSONValue, pulses: [(name: String, value: JSONValue)] = [], patch: JSONPatch.Step? = nil
    ) {
        guard !retired.load(ordering: .relaxed) else { return }
        // Compared as text: a change from 1 to 1.0 is a change, so that a snapshot and the
        // copies subscribers patched are always written the same (docs/protocol.md).
        let operations = patch?.operations(from: old) ?? JSONPatch.diff(from: old, to: new, equality: .text)
        if !operations.isEmpty {
            published.version += 1
            published.state = new
            // Room for a small patch at once (growing from nothing took four allocations),
            // kept for the next version unless a large patch grew it.
            if patchWriter.bytes.capacity > 65_536 { patchWriter.bytes = [] }
            patchWriter.bytes.removeAll(keepingCapacity: true)
            patchWriter.bytes.reserveCapacity(256)
            patchWriter.writePatch(operations)
            let frame = context.codec.patch(
                addressText, version: published.version, base: published.version - 1, operations: patchWriter.bytes
            )
            burst.append(.patch(frame, state: new, reply: nil))
        }
        for pulse in pulses {
            burst.append(.pulse(context.codec.pulse(addressText, version: published.version, name: pulse.name, value: pulse.value)))
            context.events?.emit(.pulse, in: address) {
                .pulse(address, version: published.version, name: pulse.name, value: pulse.value)
            }
        }
    }

    /// Hands the burst (the changes and replies of one drain of the runtime) to the log;
    /// a retired owner's burst holds replies only, which its log delivers or bounces.
    package func flush() {
        guard !burst.isEmpty else { return }
        let records = burst
        burst = []
        log.append(LogBurst(records: records, version: published.version, state: published.state))
    }
}
