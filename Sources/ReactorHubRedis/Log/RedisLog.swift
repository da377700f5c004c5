import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLogging
import ReactorHubProtocol
import Synchronization

/// A clustered instance's log as its owner writes it (the Redis side of the log seam):
/// each run of patches becomes one fenced commit (the Lua script checks the lease and
/// the expected version), each reply and pulse an entry at its place. Subscribers on every
/// node, the owner's included, get the entries from the instance's channel once
/// committed (`ReplicaInstance+Log`), never from here.
///
/// One task commits, in order; a commit the lease no longer allows retires the log (this
/// node stops owning), and the senders of what will never be committed are answered
/// `overloaded` (a resend with the same id is safe).
final class RedisLog: InstanceLog {
    /// A reply (or, `to` = everyone, a pulse) to append to the log.
    struct PendingReply: Sendable {
        var bytes: [UInt8]
        var actionID: String?
        var to: [UInt8]?
    }

    /// What the commit task carries out, one at a time, in order.
    enum Operation: Sendable {
        case commit([CommitEntry], state: JSONValue)
        case reply(PendingReply)
        case barrier(@Sendable () -> Void)
        case handOver(@Sendable () -> Void)
    }

    let address: String
    let lease: Lease
    let epoch: String
    let node: ClusterNode
    let logger: Logger
    let codec: any MessageCodec
    let retired = Atomic<Bool>(false)
    private let operations: AsyncStream<Operation>.Continuation
    private let onLost: @Sendable () -> Void

    /// Starts the commit task from `version` (what Redis holds), with its last snapshot at
    /// `snapshotVersion`. `onLost` runs once when a write finds the lease gone.
    init(
        address: String, lease: Lease, epoch: String, version: Int, snapshotVersion: Int, node: ClusterNode, logger: Logger,
        codec: any MessageCodec, onLost: @escaping @Sendable () -> Void
    ) {
        self.address = address
        self.lease = lease
        self.epoch = epoch
        self.node = node
        self.logger = logger
        self.codec = codec
        self.onLost = onLost
        let (stream, operations) = AsyncStream.makeStream(of: Operation.self)
        self.operations = operations
        Task { [self] in
            await commitLoop(stream, committed: version, snapshotVersion: snapshotVersion)
        }
    }

    // MARK: InstanceLog

    func append(_ burst: LogBurst) {
        var entries: [CommitEntry] = []
        var state: JSONValue?
        func commit() {
            guard !entries.isEmpty, let state else { return }
            operations.yield(.commit(entries, state: state))
            entries = []
        }
        for record in burst.records {
            switch record {
            case .patch(let frame, let after, let reply):
                var entry = CommitEntry(version: frame.version, patch: frame.withOperations { Array($0) })
                if frame.base != frame.version - 1 { entry.base = frame.base }
                if let reply {
                    // The reply of the action that caused this patch rides in its entry: one
                    // commit remembers the id with the change it made.
                    entry.actionID = reply.actionID
                    entry.reply = reply.message.withBytes { Array($0) }
                    entry.replyTo = Self.address(of: reply.to)
                }
                entries.append(entry)
                state = after
            case .reply(let reply):
                commit()
                operations.yield(.reply(PendingReply(
                    bytes: reply.message.withBytes { Array($0) }, actionID: reply.actionID, to: Self.address(of: reply.to)
                )))
            case .pulse(let message):
                commit()
                operations.yield(.reply(PendingReply(bytes: message.withBytes { Array($0) }, actionID: nil, to: ReplyAddress.everyone)))
            }
        }
        commit()
    }

    func appendReply(_ reply: LoggedReply) {
        operations.yield(.reply(PendingReply(
            bytes: reply.message.withBytes { Array($0) }, actionID: nil, to: Self.address(of: reply.to)
        )))
    }

    /// `TOKEN@NODE` of a reply's target; a clustered owner only answers through tokens.
    private static func address(of target: ReplyTarget?) -> [UInt8]? {
        guard case .node(let address)? = target else { return nil }
        return address.bytes
    }

    // MARK: Ownership

    /// Commits nothing more; what is queued is bounced.
    func retire() {
        retired.store(true, ordering: .relaxed)
    }

    /// Returns once everything appended so far is committed (or bounced).
    func settle() async {
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
            if let to = reply.to { replies = [(reply.bytes, to)] }
        case .barrier, .handOver:
            break
        }
        for (bytes, to) in replies {
            guard to != ReplyAddress.everyone, let address = ReplyAddress(bytes: to) else { continue }
            node.answer(address, OwnerRefusal.message(ref: Ref(of: bytes), codec: codec).withBytes { Array($0) })
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
        onLost()
    }
}
