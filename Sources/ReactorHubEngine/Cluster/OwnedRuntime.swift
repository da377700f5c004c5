import ReactorHubProtocol
import ReactorHubRedis
import ReactorHubJSON
import ReactorHubLocking
import ReactorHubLogging
import Reactor
import Synchronization
import ReactorHubWebSocketServer

/// The owner's side of a clustered instance: the reactor's runtime, with no subscribers of
/// its own. Every state change becomes a log entry committed to Redis by the fenced commit
/// script; every reply (ack or error) travels in the log too, right before the patch its
/// action caused, so every node, this one included, delivers replies and patches from the
/// committed log only: no client sees a version that was not committed (the epoch rule).
///
/// Safety of `@unchecked Sendable`: `published` and `burst` are touched only from the
/// runtime's serial context (the observer and action completions), one call at a time,
/// and by `init` before the runtime is observed; `committer` state lives in the commit
/// task; the rest is immutable or behind a lock or an atomic.
final class OwnedRuntime<R: Reactor>: @unchecked Sendable where R.Action: Decodable, R.State: Codable {
    /// One item of a burst in production order.
    enum BurstItem {
        case entry(CommitEntry, state: JSONValue)
        case reply(PendingReply)
    }

    /// A reply (or a pulse, `to` = everyone) to append to the log.
    struct PendingReply: Sendable {
        var bytes: [UInt8]
        var actionID: String?
        var to: [UInt8]
        /// Whether it may ride in the next patch's entry (an ack or error of an action).
        var attachable: Bool
    }

    /// What the commit task carries out, one at a time, in order.
    enum Operation: Sendable {
        case commit([CommitEntry], state: JSONValue)
        case reply(PendingReply)
        case barrier(@Sendable () -> Void)
        case handOver(@Sendable () -> Void)
    }

    struct Published {
        var state: JSONValue
        var version: Int
        var pulseCounts: [String: UInt]
    }

    let address: ReactorAddress
    let addressText: String
    let runtime: ReactorRuntime<R>
    let lease: Lease
    let epoch: String
    let node: ClusterNode
    let metrics: HubMetrics
    let logger: Logger
    let actionIDs: Locked<ActionIDWindow<ForwardedAction>>
    let retired = Atomic<Bool>(false)
    private let operations: AsyncStream<Operation>.Continuation
    private let stream: AsyncStream<Operation>
    private let onLost: @Sendable (OwnedRuntime<R>) -> Void
    private var published: Published
    private var burst: [BurstItem] = []
    private var observation: RuntimeObservation?

    /// A runtime starting from `state` (decoded from the committed state) at `version`.
    init(
        address: ReactorAddress, reactor: R, state: R.State, committedState: JSONValue, version: Int, lease: Lease, epoch: String,
        node: ClusterNode, context: ReactorKind.InstanceContext, onLost: @escaping @Sendable (OwnedRuntime<R>) -> Void
    ) throws {
        self.address = address
        self.addressText = address.description
        self.lease = lease
        self.epoch = epoch
        self.node = node
        self.metrics = context.metrics
        self.logger = context.logger
        self.onLost = onLost
        self.runtime = ReactorRuntime(reactor: reactor, logger: context.logger, restoredState: state)
        self.actionIDs = Locked(ActionIDWindow(window: context.dedupeWindow, capacity: context.dedupeEntries))
        let start = try StateEncoding.encode(runtime.currentState)
        self.published = Published(state: committedState, version: version, pulseCounts: start.pulseCounts)
        (stream, operations) = AsyncStream.makeStream(of: Operation.self)
        if start.state != committedState {
            // The kind reset transient fields on restore (`isLoading`): a change like any other.
            publishChange(from: committedState, to: start.state)
            flushBurst()
        }
    }

    /// Starts observing the runtime and committing; `committed` is the version in Redis.
    func start(committed: Int, snapshotVersion: Int) {
        observation = runtime.observe { [weak self] event in
            guard let self else { return }
            switch event {
            case .state(let state): self.publish(state)
            case .drained: self.flushBurst()
            }
        }
        let stream = self.stream
        Task { [self] in
            await commitLoop(stream, committed: committed, snapshotVersion: snapshotVersion)
        }
    }

    /// Remembers the ids a former owner recorded (read back from Redis).
    func restore(_ remembered: [InstanceStore.RememberedID]) {
        let now = ContinuousClock.now
        actionIDs.withLock { window in
            for entry in remembered {
                window.restore(entry.id, reply: entry.reply, at: now - entry.age)
            }
        }
    }

    // MARK: Actions (any thread)

    /// Applies `action` unless its id was answered (then its reply goes again, marked
    /// duplicate) or is pending (then the resend waits for the first reply).
    func dispatch(_ action: ForwardedAction) {
        guard !retired.load(ordering: .relaxed) else {
            return node.answer(action.replyTo, overloaded(action.ref))
        }
        let decoded: R.Action
        do {
            decoded = try ActionDecoder().decode(R.Action.self, from: action.action)
        } catch {
            let refusal = ProtocolError(error, kind: address.kind)
            metrics.action(address.kind, "refused")
            operations.yield(.reply(PendingReply(
                bytes: bytes(ServerMessage.error(refusal, ref: action.ref)), actionID: nil, to: action.replyTo.bytes, attachable: false
            )))
            return
        }
        if let id = action.id {
            switch actionIDs.withLock({ $0.begin(id, waiter: action, now: .now) }) {
            case .new:
                break
            case .pending:
                metrics.action(address.kind, "duplicate")
                return
            case .answered(let reply):
                metrics.action(address.kind, "duplicate")
                if let message = DuplicateReply.message(from: reply, ref: action.ref) {
                    operations.yield(.reply(PendingReply(bytes: bytes(message), actionID: nil, to: action.replyTo.bytes, attachable: false)))
                }
                return
            }
        }
        runtime.send(decoded) { [weak self] outcome in
            self?.answer(outcome, to: action)
        }
    }

    private func overloaded(_ ref: Ref?) -> [UInt8] {
        bytes(ServerMessage.error(ProtocolError(.overloaded, "this instance has no owner yet (ownership is moving); retry"), ref: ref))
    }

    private func bytes(_ message: OutboundMessage) -> [UInt8] {
        message.withBytes { Array($0) }
    }

    // MARK: Serial context

    /// The reply joins the burst where it was decided: before any patch its action causes.
    private func answer(_ outcome: ActionOutcome, to action: ForwardedAction) {
        let reply: OutboundMessage
        switch outcome {
        case .accepted:
            metrics.action(address.kind, "accepted")
            reply = ServerMessage.ack(addressText, ref: action.ref, version: published.version)
        case .refused(let refusal):
            metrics.action(address.kind, "refused")
            metrics.errors.increment("invalid_action")
            reply = ServerMessage.error(ProtocolError(.invalidAction, refusal.message), ref: action.ref)
        case .failed(let message):
            metrics.action(address.kind, "refused")
            metrics.errors.increment("internal")
            logger.error("action failed", metadata: ["error": message])
            reply = ServerMessage.error(ProtocolError(.internal, "the action failed: \(message)"), ref: action.ref)
        case .withdrawn:
            // Only for actions sent with an `admit` check, which forwarded ones are not;
            // never applied, so its id is not remembered and a resend may be applied.
            metrics.action(address.kind, "refused")
            metrics.errors.increment("overloaded")
            let refusal = ServerMessage.error(ProtocolError(.overloaded, "the action was withdrawn; retry with the same id"), ref: action.ref)
            burst.append(.reply(PendingReply(bytes: bytes(refusal), actionID: nil, to: action.replyTo.bytes, attachable: true)))
            return
        }
        let encoded = bytes(reply)
        burst.append(.reply(PendingReply(bytes: encoded, actionID: action.id, to: action.replyTo.bytes, attachable: true)))
        if let id = action.id {
            let waiters = actionIDs.withLock { $0.answer(id, reply: encoded, now: .now) }
            for waiter in waiters {
                if let message = DuplicateReply.message(from: encoded, ref: waiter.ref) {
                    burst.append(.reply(PendingReply(bytes: bytes(message), actionID: nil, to: waiter.replyTo.bytes, attachable: false)))
                }
            }
        }
    }

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
            if let value = try? pulse.encodedValue() { pulses.append((pulse.name, value)) }
        }
        publishChange(from: published.state, to: encoded.state, pulses: pulses)
    }

    private func publishChange(from old: JSONValue, to new: JSONValue, pulses: [(name: String, value: JSONValue)] = []) {
        guard !retired.load(ordering: .relaxed) else { return }
        let operations = JSONPatch.diff(from: old, to: new)
        if !operations.isEmpty {
            published.version += 1
            published.state = new
            var writer = JSONWriter()
            writer.writePatch(operations)
            let frame = PatchFrame(address: addressText, version: published.version, base: published.version - 1, operations: writer.bytes)
            var entry = CommitEntry(version: published.version, frame: frame.message.withBytes { Array($0) })
            if case .reply(let reply)? = burst.last, reply.attachable {
                // The reply of the action that caused this patch rides in its entry: one
                // commit remembers the id with the change it made.
                burst.removeLast()
                entry.actionID = reply.actionID
                entry.reply = reply.bytes
                entry.replyTo = reply.to
            }
            burst.append(.entry(entry, state: new))
        }
        for pulse in pulses {
            let message = ServerMessage.pulse(addressText, version: published.version, name: pulse.name, value: pulse.value)
            burst.append(.reply(PendingReply(bytes: bytes(message), actionID: nil, to: ReplyAddress.everyone, attachable: false)))
        }
    }

    /// Hands the burst to the commit task: runs of patches as one commit each, replies and
    /// pulses between them in their place.
    private func flushBurst() {
        guard !burst.isEmpty else { return }
        var entries: [CommitEntry] = []
        var state = published.state
        for item in burst {
            switch item {
            case .entry(let entry, let after):
                entries.append(entry)
                state = after
            case .reply(let reply):
                if !entries.isEmpty {
                    operations.yield(.commit(entries, state: state))
                    entries = []
                }
                operations.yield(.reply(reply))
            }
        }
        if !entries.isEmpty { operations.yield(.commit(entries, state: state)) }
        burst = []
    }

    // MARK: Commit task

    private func commitLoop(_ stream: AsyncStream<Operation>, committed start: Int, snapshotVersion: Int) async {
        var committed = start
        var snapshotAt = snapshotVersion
        var committedState: JSONValue?
        let every = max(1, node.options.historySize / 4)
        for await operation in stream {
            switch operation {
            case .barrier(let done):
                done()
                continue
            case .handOver(let done):
                if !retired.load(ordering: .relaxed) {
                    if let committedState, committed > snapshotAt {
                        _ = await write(snapshot: committedState, at: committed)
                    }
                    retire()
                    await node.release(lease)
                }
                done()
                continue
            case .commit, .reply:
                break
            }
            guard !retired.load(ordering: .relaxed) else {
                bounce(operation)
                continue
            }
            switch operation {
            case .commit(let entries, let state):
                guard let last = entries.last?.version else { continue }
                let expected = committed
                guard await perform({ [node, lease, epoch] () async throws(RedisError) -> CommitOutcome in
                    try await node.store.commit(lease, epoch: epoch, expected: expected, entries: entries)
                }, done: last) else {
                    bounce(operation)
                    continue
                }
                committed = last
                committedState = state
                if committed - snapshotAt >= every, await write(snapshot: state, at: committed) {
                    snapshotAt = committed
                }
            case .reply(let reply):
                if await !perform({ [node, lease, epoch] () async throws(RedisError) -> CommitOutcome in
                    try await node.store.reply(lease, epoch: epoch, reply: reply.bytes, actionID: reply.actionID, replyTo: reply.to, logged: true)
                }, done: nil) {
                    bounce(operation)
                }
            case .barrier, .handOver:
                break
            }
        }
    }

    /// Runs a fenced write until Redis answers; a link failure is retried (a commit that
    /// did run answers `versionConflict` at its own last version: done). False when the
    /// lease is lost: this node stops owning the instance.
    private func perform(_ write: @Sendable () async throws(RedisError) -> CommitOutcome, done last: Int?) async -> Bool {
        var delay = Duration.milliseconds(20)
        while !retired.load(ordering: .relaxed) {
            do {
                switch try await write() {
                case .committed:
                    return true
                case .versionConflict(let current) where current == last:
                    return true
                case let outcome:
                    logger.warning("commit refused: this node no longer owns the instance", metadata: ["outcome": "\(outcome)"])
                    lost()
                    return false
                }
            } catch {
                if error.code == .reply {
                    logger.error("commit failed", metadata: ["error": error.message])
                    lost()
                    return false
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .milliseconds(500))
            }
        }
        return false
    }

    /// The replies of an operation that will never be committed (this node lost the
    /// instance): each sender gets `overloaded` now, and may resend with the same id.
    private func bounce(_ operation: Operation) {
        var replies: [(bytes: [UInt8], to: [UInt8])] = []
        switch operation {
        case .commit(let entries, _):
            replies = entries.compactMap { entry in entry.reply.flatMap { reply in entry.replyTo.map { (reply, $0) } } }
        case .reply(let reply):
            replies = [(reply.bytes, reply.to)]
        case .barrier, .handOver:
            break
        }
        for (bytes, to) in replies {
            guard to != ReplyAddress.everyone, let address = ReplyAddress(bytes: to) else { continue }
            node.answer(address, overloaded(Ref(of: bytes)))
        }
    }

    private func write(snapshot state: JSONValue, at version: Int) async -> Bool {
        var writer = JSONWriter()
        writer.writeValue(state)
        let snapshot = InstanceSnapshot(epoch: epoch, version: version, state: writer.bytes)
        do {
            if case .committed = try await node.store.writeSnapshot(lease, snapshot) { return true }
        } catch {
            logger.debug("snapshot not written", metadata: ["error": error.message])
        }
        return false
    }

    private func lost() {
        guard !retired.exchange(true, ordering: .relaxed) else { return }
        onLost(self)
    }

    /// Publishes and commits nothing more.
    func retire() {
        retired.store(true, ordering: .relaxed)
    }

    /// Returns once the runtime is idle and everything produced so far is committed.
    func settle() async {
        await runtime.waitUntilIdle()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operations.yield(.barrier { continuation.resume() })
        }
    }

    /// Commits what is queued, writes a snapshot and releases the lease (SIGTERM, eviction).
    func handOver() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operations.yield(.handOver { continuation.resume() })
        }
        operations.finish()
    }

    var isIdle: Bool { !runtime.hasEffectsInFlight }
}
