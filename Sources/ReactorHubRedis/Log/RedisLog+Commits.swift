import ReactorHubEngine
import ReactorHubJSON

/// Where the commit task stands: what Redis holds, what its last snapshot is, and what was
/// written but not yet confirmed.
struct CommitProgress: Sendable {
    /// One entry written unpublished (`cluster.minReplicas`): where it landed, and the
    /// reply it carries to a sender, if any.
    struct Unconfirmed: Sendable {
        var position: LogPosition
        var reply: (bytes: [UInt8], to: [UInt8])?
    }

    var committed: Int
    var snapshotAt: Int
    var committedState: JSONValue?
    var unconfirmed: [Unconfirmed] = []
    /// A former owner left entries `WAIT` did not confirm: they are confirmed first.
    var inheritedUnconfirmed = false
}

/// The commit task: one operation at a time, in order; a burst of writes, then (with
/// `cluster.minReplicas`) one confirmation for all of them.
extension RedisLog {
    func commitLoop(_ start: CommitProgress) async {
        var progress = start
        if progress.inheritedUnconfirmed { await confirmWritten(&progress) }
        while let batch = await operations.next() {
            for operation in batch {
                switch operation {
                case .barrier(let done):
                    await confirmWritten(&progress)
                    done()
                case .handOver(let done):
                    await confirmWritten(&progress)
                    if !retired.load(ordering: .relaxed) {
                        if let state = progress.committedState, progress.committed > progress.snapshotAt {
                            _ = await write(snapshot: state, at: progress.committed)
                        }
                        retire()
                        await node.release(lease)
                    }
                    done()
                case .commit, .reply, .verify:
                    await write(operation, &progress)
                }
            }
            await confirmWritten(&progress)
        }
    }

    /// Whether entries go out at once (no replica to wait for) or after `WAIT`.
    var publishesAtOnce: Bool {
        node.options.minReplicas == 0
    }

    private func write(_ operation: Operation, _ progress: inout CommitProgress) async {
        guard !retired.load(ordering: .relaxed) else { return bounce(operation) }
        let publish = publishesAtOnce
        switch operation {
        case .commit(let entries, let state):
            guard let last = entries.last?.version else { return }
            let expected = progress.committed
            guard await outcome(of: perform({ [node, lease, epoch] () async throws(RedisError) -> Written in
                Written(outcome: try await node.store.commit(lease, epoch: epoch, expected: expected, entries: entries, publish: publish))
            }, done: last), operation, &progress) != nil else { return }
            progress.committed = last
            progress.committedState = state
            if publish {
                await snapshotIfDue(&progress)
            } else {
                progress.unconfirmed += entries.map { entry in
                    CommitProgress.Unconfirmed(
                        position: LogPosition(version: entry.version, sequence: 0),
                        reply: entry.reply.flatMap { reply in entry.replyTo.map { (reply, $0) } }
                    )
                }
            }
        case .reply(let reply):
            let written = await outcome(of: perform({ [node, lease, epoch] () async throws(RedisError) -> Written in
                let (outcome, position) = try await node.store.record(
                    lease, epoch: epoch, reply: reply.bytes, actionID: reply.actionID, replyTo: reply.to, logged: true, publish: publish
                )
                return Written(outcome: outcome, position: position)
            }, done: nil), operation, &progress)
            guard let written else { return }
            if !publish, let position = written.position {
                progress.unconfirmed.append(CommitProgress.Unconfirmed(position: position, reply: reply.to.map { (reply.bytes, $0) }))
            }
        case .verify:
            // Nothing waits for WAIT here (the loop confirms each batch before the next): the
            // confirmation script is a fenced no-op.
            guard progress.unconfirmed.isEmpty else { return }
            _ = await outcome(of: perform({ [node, lease, epoch] () async throws(RedisError) -> Written in
                Written(outcome: try await node.store.confirm(lease, epoch: epoch))
            }, done: nil), operation, &progress)
        case .barrier, .handOver:
            break
        }
    }

    /// What a fenced write answered, and where its entry landed when it says.
    struct Written: Sendable {
        var outcome: CommitOutcome
        var position: LogPosition?
    }

    /// How a fenced write ended.
    enum Performed: Sendable {
        /// Written (or found already written).
        case written(Written)
        /// Not written, and never will be by this log.
        case refused
        /// Not written: Redis failed over since the epoch began.
        case failedOver
    }

    /// The write when it happened; otherwise its senders are answered, those of what was
    /// written unconfirmed before a failover too, and nil.
    private func outcome(of performed: Performed, _ operation: Operation, _ progress: inout CommitProgress) async -> Written? {
        switch performed {
        case .written(let written):
            return written
        case .refused:
            bounce(operation)
        case .failedOver:
            await resolveAfterFailover(progress.unconfirmed)
            progress.unconfirmed = []
            bounce(operation)
        }
        return nil
    }

    /// Runs a fenced write until Redis answers; a link failure is retried (a commit that
    /// did run answers `versionConflict` at its own last version: done). A refusal ends
    /// the log: another node holds the lease, or Redis failed over.
    func perform(_ write: @Sendable () async throws(RedisError) -> Written, done last: Int?) async -> Performed {
        var delay = Duration.milliseconds(20)
        while !retired.load(ordering: .relaxed) {
            do {
                let written = try await write()
                switch written.outcome {
                case .committed:
                    return .written(written)
                case .versionConflict(let current) where current == last:
                    return .written(written)
                case .failedOver:
                    return .failedOver
                case let outcome:
                    logger.warning("commit refused: this node no longer owns the instance", metadata: ["outcome": "\(outcome)"])
                    end(.lost)
                    return .refused
                }
            } catch {
                if error.code == .reply {
                    logger.error("commit failed", metadata: ["error": error.message])
                    end(.lost)
                    return .refused
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .milliseconds(250))
            }
        }
        return .refused
    }

    func snapshotIfDue(_ progress: inout CommitProgress) async {
        let every = max(1, node.options.historySize / 4)
        guard let state = progress.committedState, progress.committed - progress.snapshotAt >= every else { return }
        if await write(snapshot: state, at: progress.committed) {
            progress.snapshotAt = progress.committed
        }
    }

    func write(snapshot state: JSONValue, at version: Int) async -> Bool {
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
}
