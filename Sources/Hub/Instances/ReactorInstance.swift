import JSON
import Logging
import Reactor
import Synchronization
import Transport

/// A shared instance of reactor `R`: its runtime, its subscribers, its versions and the
/// recent patches, and the publication of every state change to every subscriber.
///
/// Two contexts touch it. The transport's service thread joins, leaves and dispatches;
/// the runtime's serial context publishes state changes. What both need (subscribers,
/// version, current state) lives in `shared`, and every message is posted to the
/// channel while holding that lock, so a join's snapshot and the patches around it
/// reach the transport in version order: no patch can fall between snapshot and stream.
///
/// Safety of `@unchecked Sendable`: `published` is touched only from the runtime's serial
/// context (the observer and action completions), one call at a time; everything else
/// is immutable or behind a lock (`shared`, `gate`).
final class ReactorInstance<R: Reactor>: HubInstance, @unchecked Sendable
where R.Action: Decodable, R.State: Encodable {
    /// Where a restored instance starts: its decoded state and what the store kept.
    struct Restored {
        var state: R.State
        var stored: StoredInstance
    }

    struct Shared {
        var subscribers: [ConnectionID] = []
        var version: Int
        var epoch: String
        var state: JSONValue
        /// The compact text of `state`, built on the first join after a change.
        var stateText: [UInt8]?
        var history: PatchHistory
    }

    /// What the serial context last published, to diff the next state against, and the
    /// changes of the current burst not yet handed to the transport.
    private struct Published {
        var state: JSONValue
        var version: Int
        var pulseCounts: [String: UInt]
        /// Patch frames of the burst, one per version, with their operations' JSON text.
        var batch: [(version: Int, frame: OutboundMessage, operations: [UInt8])] = []
        /// Pulse frames of the burst, in the order they fired.
        var pulses: [OutboundMessage] = []
        /// Every frame of the burst in the order it was produced (patches and pulses).
        var inOrder: [OutboundMessage] = []
    }

    let address: ReactorAddress
    let stream: StreamID
    let runtime: ReactorRuntime<R>
    private let addressText: String
    private let epoch: String
    private let context: ReactorKind.InstanceContext
    private let logger: Logger
    private let shared: Mutex<Shared>
    /// Messages waiting for durability; used only when `gated` (`durableAcks`).
    private let gate: Mutex<DeliveryGate>
    private let gated: Bool
    private var published: Published
    private var observation: RuntimeObservation?

    init(address: ReactorAddress, reactor: R, restored: Restored?, context: ReactorKind.InstanceContext) throws {
        self.address = address
        self.stream = context.stream
        self.addressText = address.description
        self.context = context
        var logger = context.logger
        logger[metadataKey: "reactor"] = address.description
        self.logger = logger
        self.runtime = ReactorRuntime(reactor: reactor, logger: logger, restoredState: restored?.state)
        let start = try StateEncoding.encode(runtime.currentState)

        var history = PatchHistory(capacity: context.historyCapacity)
        var version = 0
        self.epoch = restored?.stored.epoch ?? Epoch.make()
        if let stored = restored?.stored {
            version = stored.version
            for patch in stored.patches {
                history.append(OutboundMessage(patch.frame, kind: .stateUpdate(context.stream)), version: patch.version)
            }
        }
        self.published = Published(state: start.state, version: version, pulseCounts: start.pulseCounts)
        self.shared = Mutex(Shared(version: version, epoch: epoch, state: start.state, history: history))
        self.gate = Mutex(DeliveryGate(durableVersion: version))
        self.gated = context.durableAcks

        if let stored = restored?.stored, stored.state != start.state {
            // The kind reset transient fields on restore (e.g. `isLoading`): that is a
            // change like any other, so that clients resuming from before see it.
            publishChange(from: stored.state, to: start.state)
            flushBurst()
        }
    }

    /// Starts publishing state changes; called once, right after creation.
    func startPublishing() {
        observation = runtime.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .state(let state):
                self.publish(state)
            case .drained:
                self.flushBurst()
                self.settlePendingAcks()
            }
        }
    }

    var subscriberCount: Int {
        shared.withLock { $0.subscribers.count }
    }

    var version: Int {
        shared.withLock { $0.version }
    }

    var isIdle: Bool {
        !runtime.hasEffectsInFlight && gate.withLock { $0.isEmpty }
    }

    // MARK: Service-thread side

    func join(_ id: ConnectionID, ref: JSONValue?, since: ClientMessage.ResumePoint?) {
        shared.withLock { shared in
            let wasSubscribed = shared.subscribers.contains(id)
            if !wasSubscribed {
                shared.subscribers.append(id)
            }
            if let since, !wasSubscribed, since.epoch == shared.epoch, since.version <= shared.version,
               let missed = shared.history.frames(after: since.version, current: shared.version)
            {
                context.channel.send(
                    ServerMessage.resumed(addressText, ref: ref, epoch: shared.epoch, version: shared.version, stream: stream),
                    to: id
                )
                for frame in missed {
                    context.channel.send(frame, to: id)
                }
                return
            }
            context.channel.send(snapshot(&shared, ref: ref), to: id)
        }
    }

    @discardableResult
    func leave(_ id: ConnectionID) -> Bool {
        shared.withLock { shared in
            guard let index = shared.subscribers.firstIndex(of: id) else { return false }
            shared.subscribers.remove(at: index)
            return true
        }
    }

    func resync(_ id: ConnectionID) {
        shared.withLock { shared in
            guard shared.subscribers.contains(id) else { return }
            context.channel.send(snapshot(&shared, ref: nil), to: id)
        }
    }

    private func snapshot(_ shared: inout Shared, ref: JSONValue?) -> OutboundMessage {
        let text: [UInt8]
        if let cached = shared.stateText {
            text = cached
        } else {
            var writer = JSONWriter()
            writer.writeValue(shared.state)
            text = writer.bytes
            shared.stateText = text
        }
        return ServerMessage.snapshot(
            addressText, ref: ref, epoch: shared.epoch, version: shared.version, state: text, stream: stream
        )
    }

    func dispatch(_ payload: JSONValue, from id: ConnectionID, ref: JSONValue?) -> ProtocolError? {
        let action: R.Action
        do {
            action = try ActionDecoder().decode(R.Action.self, from: payload)
        } catch {
            return ProtocolError(error, kind: address.kind)
        }
        runtime.send(action) { [weak self] outcome in
            self?.answer(outcome, to: id, ref: ref)
        }
        return nil
    }

    func waitUntilIdle() async {
        await runtime.waitUntilIdle()
    }

    // MARK: Serial-context side

    /// Answers an action once `mutate` accepted or refused it, before any of its
    /// mutations is reduced (so the ack precedes the patches it causes).
    private func answer(_ outcome: ActionOutcome, to id: ConnectionID, ref: JSONValue?) {
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
    private func publish(_ state: R.State) {
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
            pulses.append((pulse.name, pulse.value))
        }
        publishChange(from: published.state, to: encoded.state, pulses: pulses)
    }

    /// Records one change of the current burst: its own patch frame (kept in the history
    /// and the store) and its pulses. The burst leaves in `flushBurst`.
    private func publishChange(from old: JSONValue, to new: JSONValue, pulses: [(name: String, value: JSONValue)] = []) {
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
            published.pulses.append(frame)
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
    private func flushBurst() {
        guard !published.inOrder.isEmpty else { return }
        let batch = published.batch
        var frames = published.inOrder
        published.batch = []
        published.inOrder = []
        let version = published.version
        let state = published.state
        if batch.count > Self.coalescingThreshold, let first = batch.first, let last = batch.last {
            let combined = ServerMessage.patch(
                addressText, version: last.version, base: first.version - 1,
                operations: Self.concatenate(batch.map(\.operations)), stream: stream
            )
            frames = [combined] + published.pulses
        }
        published.pulses = []
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

    /// `[a,b]`, `[c]` → `[a,b,c]`: applying the result applies each patch in turn.
    static func concatenate(_ patches: [[UInt8]]) -> [UInt8] {
        var joined: [UInt8] = [UInt8(ascii: "[")]
        joined.reserveCapacity(patches.reduce(2) { $0 + $1.count })
        for (index, patch) in patches.enumerated() {
            if index > 0 { joined.append(UInt8(ascii: ",")) }
            joined.append(contentsOf: patch.dropFirst().dropLast())
        }
        joined.append(UInt8(ascii: "]"))
        return joined
    }

    /// Sends now, or through the gate when acks must be durable.
    private func deliver(_ message: OutboundMessage, to recipients: DeliveryGate.Recipients, requiredVersion: Int?) {
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

    private func settlePendingAcks() {
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
