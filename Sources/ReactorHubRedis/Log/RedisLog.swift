import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLogging
import ReactorHubProtocol
import Synchronization

/// A clustered instance's log as its owner writes it (the Redis side of the log seam):
/// each run of patches becomes one fenced commit (the Lua script checks the lease, the
/// expected version and the history line), each reply and pulse an entry at its place.
/// Subscribers on every node, the owner's included, get the entries from the instance's
/// channel once committed (`ReplicaInstance+Log`), never from here.
///
/// With `cluster.minReplicas` the entries are written unpublished, and published (with the
/// acks they carry) only once `WAIT` confirmed they reached that many replicas
/// (`RedisLog+Confirmation`): until then their senders get nothing.
///
/// One task commits, in order; a write the lease no longer allows retires the log (this
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
        /// The master moved: check that the epoch may go on there (or start a new one).
        case verify
    }

    /// Why the log stopped writing.
    enum Ending: Sendable {
        /// Another node holds the lease, or the instance moved on: stop owning.
        case lost
        /// Redis failed over since the epoch began: a new epoch must start from what the new
        /// master holds.
        case failedOver
    }

    let address: String
    let lease: Lease
    let epoch: String
    let node: ClusterNode
    let logger: Logger
    let codec: any MessageCodec
    let retired = Atomic<Bool>(false)
    let operations = BatchLane<Operation>()
    private let onEnd: @Sendable (Ending) -> Void

    /// Starts the commit task from `version` (what Redis holds), with its last snapshot at
    /// `snapshotVersion`; `unconfirmed`: a former owner left entries `WAIT` did not confirm,
    /// confirmed first. `onEnd` runs once when a write finds the lease gone or the history
    /// line changed.
    init(
        address: String, lease: Lease, epoch: String, version: Int, snapshotVersion: Int, unconfirmed: Bool,
        node: ClusterNode, logger: Logger, codec: any MessageCodec, onEnd: @escaping @Sendable (Ending) -> Void
    ) {
        self.address = address
        self.lease = lease
        self.epoch = epoch
        self.node = node
        self.logger = logger
        self.codec = codec
        self.onEnd = onEnd
        var progress = CommitProgress(committed: version, snapshotAt: snapshotVersion)
        progress.inheritedUnconfirmed = unconfirmed
        Task { [self, progress] in
            await commitLoop(progress)
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

    /// Returns once everything appended so far is committed and confirmed (or bounced).
    func settle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operations.yield(.barrier { continuation.resume() })
        }
    }

    /// The master moved: a fenced no-op tells at once whether the epoch may go on there, so
    /// that a new epoch starts now rather than at the next action.
    func verify() {
        operations.yield(.verify)
    }

    /// Commits what is queued, writes a snapshot and releases the lease (SIGTERM, eviction).
    func handOver() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            operations.yield(.handOver { continuation.resume() })
        }
        operations.finish()
    }

    /// Stops writing for `ending`, once; the owner is told.
    func end(_ ending: Ending) {
        guard !retired.exchange(true, ordering: .relaxed) else { return }
        onEnd(ending)
    }

    /// The replies of an operation that will never be committed (this node lost the
    /// instance): each sender gets `overloaded` now, and may resend with the same id.
    func bounce(_ operation: Operation) {
        switch operation {
        case .commit(let entries, _):
            refuse(entries.compactMap { entry in entry.reply.flatMap { reply in entry.replyTo.map { (reply, $0) } } })
        case .reply(let reply):
            if let to = reply.to { refuse([(reply.bytes, to)]) }
        case .barrier, .handOver, .verify:
            break
        }
    }

    /// Answers each reply's sender `overloaded` (with the reply's ref) instead.
    func refuse(_ replies: [(bytes: [UInt8], to: [UInt8])]) {
        for (bytes, to) in replies {
            guard to != ReplyAddress.everyone, let address = ReplyAddress(bytes: to) else { continue }
            node.answer(address, OwnerRefusal.message(ref: Ref(of: bytes), codec: codec).withBytes { Array($0) })
        }
    }
}
