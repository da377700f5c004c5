import ReactorHubStore
import ReactorHubProtocol
import ReactorHubJSON
import ReactorHubLocking
import ReactorHubLogging
import Reactor
import Dispatch
import Synchronization
import ReactorHubWebSocketServer

/// A shared instance of reactor `R`: its runtime, its subscribers, its versions and the
/// recent patches, and the publication of every state change to every subscriber.
///
/// Two contexts touch it. The transport's service thread joins, leaves and dispatches;
/// the runtime's serial context publishes state changes. What both need (subscribers,
/// version, current state) lives in `shared`, and every message is handed to delivery
/// while holding that lock, so a join's snapshot and the patches around it reach each
/// outbox in version order: no patch can fall between snapshot and stream.
///
/// Safety of `@unchecked Sendable`: `published` is touched only from the runtime's serial
/// context (the observer and action completions), one call at a time, and by `init`
/// before the runtime is observed; everything else is immutable or behind a lock
/// (`shared`, `gate`).
final class ReactorInstance<R: Reactor>: HubInstance, @unchecked Sendable
where R.Action: Decodable, R.State: Encodable {
    /// Where a restored instance starts: its decoded state and what the store kept.
    struct Restored {
        var state: R.State
        var stored: StoredInstance
    }

    struct Shared {
        var subscribers: [ConnectionOutput] = []
        var version: Int
        var epoch: String
        var state: JSONValue
        /// The compact text of `state`, built on the first join after a change.
        var stateText: [UInt8]?
        var history: PatchHistory
    }

    /// What the serial context last published, to diff the next state against, and the
    /// changes of the current burst not yet handed to delivery.
    struct Published {
        var state: JSONValue
        var version: Int
        var pulseCounts: [String: UInt]
        /// Patch frames of the burst, one per version.
        var batch: [PatchFrame] = []
        /// Every entry of the burst in the order it was produced (patches and pulses).
        var inOrder: [Outgoing] = []
    }

    let address: ReactorAddress
    let stream: StreamID
    let runtime: ReactorRuntime<R>
    let addressText: String
    let epoch: String
    let context: ReactorKind.InstanceContext
    let logger: Logger
    let shared: Locked<Shared>
    /// Messages waiting for durability; used only when `gated` (`durableAcks`).
    let gate: Locked<DeliveryGate>
    let gated: Bool
    /// The outcomes of action ids (PROTOCOL.md "Actions that are safe to resend"), and the
    /// resends waiting for a pending one.
    let actionIDs: Locked<ActionIDWindow<IDWaiter>>
    /// Replaced by a reset: nothing more is published or stored.
    let retired = Atomic<Bool>(false)
    /// Actions sent to the runtime whose `mutate` has not run yet.
    let pendingActions = Atomic<Int>(0)
    /// Who is here (PROTOCOL.md "Presence").
    let presence: PresenceRoom
    var published: Published
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

        var history = PatchHistory(capacity: context.historyCapacity, maxBytes: context.historyBytes)
        var version = 0
        self.epoch = restored?.stored.epoch ?? Epoch.make()
        if let stored = restored?.stored {
            version = stored.version
            for patch in stored.patches {
                if let frame = Self.frame(restoring: patch, address: address.description) {
                    history.append(frame)
                }
            }
        }
        self.published = Published(state: start.state, version: version, pulseCounts: start.pulseCounts)
        self.shared = Locked(Shared(version: version, epoch: epoch, state: start.state, history: history))
        self.gate = Locked(DeliveryGate(durableVersion: version))
        self.gated = context.durableAcks
        self.presence = PresenceRoom(maxListed: context.presenceMaxListed)
        self.actionIDs = Locked(ActionIDWindow(window: context.dedupeWindow, capacity: context.dedupeEntries))

        if context.fresh {
            context.store.record(StoredChange(
                address: address, epoch: epoch, version: 0, state: start.state, patch: nil, keepPatches: context.historyCapacity
            ))
        }
        if let stored = restored?.stored, stored.state != start.state {
            // The kind reset transient fields on restore (e.g. `isLoading`): that is a
            // change like any other, so that clients resuming from before see it.
            publishChange(from: stored.state, to: start.state)
            flushBurst()
        }
    }

    /// A stored patch frame as a `PatchFrame`; nil (with a log line) if it no longer parses.
    private static func frame(restoring patch: StoredPatch, address: String) -> PatchFrame? {
        guard let frame = try? JSONParser().parse(patch.frame), let operations = frame["patch"] else { return nil }
        var writer = JSONWriter()
        writer.writeValue(operations)
        let base = frame["base"]?.intValue ?? (patch.version - 1)
        return PatchFrame(address: address, version: patch.version, base: base, operations: writer.bytes)
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
                self.context.load.drained(self.stream, instancePending: self.pendingActions.load(ordering: .relaxed))
            }
        }
    }

    var subscriberCount: Int {
        shared.withLock { $0.subscribers.count }
    }

    var isIdle: Bool {
        !runtime.hasEffectsInFlight && gate.withLock { $0.isEmpty }
    }

    // MARK: Service-thread side

    func join(_ output: ConnectionOutput, ref: Ref?, since: ClientMessage.ResumePoint?) {
        shared.withLock { shared in
            let wasSubscribed = shared.subscribers.contains { $0 === output }
            if !wasSubscribed {
                shared.subscribers.append(output)
            }
            if let since, !wasSubscribed, since.epoch == shared.epoch, since.version <= shared.version,
               let missed = shared.history.frames(after: since.version, current: shared.version)
            {
                // `resumed` names the version the client holds; the missed patches continue from it.
                let resumed = ServerMessage.resumed(
                    addressText, ref: ref, epoch: shared.epoch, version: since.version, extra: presence.snapshotMembers()
                )
                let entries = [Outgoing.snapshot(stream, resumed)] + missed.map { Outgoing.patch(stream, $0) }
                deliver(entries, to: .one(output), requiredVersion: shared.version)
                context.metrics.resumes.increment("resumed")
                return
            }
            if since != nil { context.metrics.resumes.increment("snapshot") }
            context.metrics.snapshots.increment("join")
            deliver([.snapshot(stream, snapshot(&shared, ref: ref))], to: .one(output), requiredVersion: shared.version)
        }
    }

    @discardableResult
    func leave(_ id: ConnectionID) -> Bool {
        let left = shared.withLock { shared -> Bool in
            guard let index = shared.subscribers.firstIndex(where: { $0.id == id }) else { return false }
            shared.subscribers.remove(at: index)
            return true
        }
        if left, presence.set(id.description, user: nil, state: nil).scheduleBroadcast {
            schedulePresenceBroadcast()
        }
        return left
    }

    func setPresence(_ output: ConnectionOutput, user: String?, state: [UInt8]?, ref: Ref?) {
        let version = shared.withLock { $0.version }
        if presence.set(output.id.description, user: user, state: state).scheduleBroadcast {
            schedulePresenceBroadcast()
        }
        if let ref {
            context.delivery.send(.reply(ServerMessage.ack(addressText, ref: ref, version: version)), to: output)
        }
    }

    /// Changes that pile up within this window leave as one frame.
    static var presenceWindow: DispatchTimeInterval { .milliseconds(30) }

    private func schedulePresenceBroadcast() {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.presenceWindow) { [weak self] in
            self?.broadcastPresence()
        }
    }

    private func broadcastPresence() {
        shared.withLock { shared in
            guard let frame = presence.takeBroadcast(addressText) else { return }
            context.delivery.send([.presence(stream, frame)], to: shared.subscribers)
        }
    }

    func resync(_ id: ConnectionID) {
        shared.withLock { shared in
            guard let output = shared.subscribers.first(where: { $0.id == id }) else { return }
            context.metrics.snapshots.increment("resync")
            deliver([.snapshot(stream, snapshot(&shared, ref: nil))], to: .one(output), requiredVersion: shared.version)
        }
    }

    func adopt(_ outputs: [ConnectionOutput]) {
        shared.withLock { shared in
            for output in outputs where !shared.subscribers.contains(where: { $0 === output }) {
                shared.subscribers.append(output)
                context.metrics.snapshots.increment("reset")
                deliver([.snapshot(stream, snapshot(&shared, ref: nil))], to: .one(output), requiredVersion: shared.version)
            }
        }
    }

    private func snapshot(_ shared: inout Shared, ref: Ref?) -> OutboundMessage {
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
            addressText, ref: ref, epoch: shared.epoch, version: shared.version, state: text, extra: presence.snapshotMembers()
        )
    }

    func dispatch(
        _ payload: JSONValue, from output: ConnectionOutput, id: String?, ref: Ref?, receivedAt: ContinuousClock.Instant
    ) -> ProtocolError? {
        let action: R.Action
        do {
            action = try ActionDecoder().decode(R.Action.self, from: payload)
        } catch {
            return ProtocolError(error, kind: address.kind)
        }
        if let id {
            switch actionIDs.withLock({ $0.begin(id, waiter: IDWaiter(output: output, ref: ref), now: .now) }) {
            case .new:
                break
            case .pending:
                context.metrics.action(address.kind, "duplicate")
                return nil
            case .answered(let reply):
                context.metrics.action(address.kind, "duplicate")
                sendDuplicate(reply, to: IDWaiter(output: output, ref: ref), requiredVersion: shared.withLock { $0.version })
                return nil
            }
        }
        let pending = pendingActions.add(1, ordering: .relaxed).newValue
        context.load.queued(from: output.id, on: stream, instancePending: pending)
        let load = context.load
        runtime.send(action, admit: { load.admits(output) }) { [weak self] outcome in
            guard let self else { return }
            self.pendingActions.subtract(1, ordering: .relaxed)
            self.context.load.taken()
            self.answer(outcome, to: output, id: id, ref: ref, receivedAt: receivedAt)
        }
        return nil
    }

    func inspect(history: Int) -> InstanceInspection {
        shared.withLock { shared in
            InstanceInspection(
                epoch: shared.epoch, version: shared.version, subscribers: shared.subscribers, state: shared.state,
                history: shared.history.last(history)
            )
        }
    }

    func retire() -> [ConnectionOutput] {
        retired.store(true, ordering: .relaxed)
        return shared.withLock { shared in
            defer { shared.subscribers = [] }
            return shared.subscribers
        }
    }

    func waitUntilIdle() async {
        await runtime.waitUntilIdle()
    }
}
