import ReactorHubEngine

/// `cluster.minReplicas`: entries are published, and their senders answered, only once
/// `WAIT` confirmed they reached that many replicas, so that a Redis failover loses no
/// acked change.
extension RedisLog {
    /// How often the senders of entries still waiting for `WAIT` are told to keep waiting
    /// (their node would otherwise answer them `overloaded` after its reply timeout).
    static let holdInterval = Duration.seconds(1)

    /// Waits until `WAIT` says every entry written so far reached `minReplicas` replicas,
    /// then publishes them in order (`confirm`). Meanwhile their senders get nothing, and
    /// their nodes are told every `holdInterval` to keep waiting. Returns at once when
    /// nothing waits.
    func confirmWritten(_ progress: inout CommitProgress) async {
        guard !progress.unconfirmed.isEmpty || progress.inheritedUnconfirmed else { return }
        let replicas = node.options.minReplicas
        var heldAt = ContinuousClock.now
        var holds = 0
        var delay = Duration.milliseconds(20)
        while !retired.load(ordering: .relaxed) {
            do throws(RedisError) {
                let count = replicas == 0 ? 0 : try await node.store.waitForReplicas(replicas, timeout: .milliseconds(250))
                if count >= replicas {
                    switch try await node.store.confirm(lease, epoch: epoch) {
                    case .committed:
                        progress.unconfirmed = []
                        progress.inheritedUnconfirmed = false
                        await snapshotIfDue(&progress)
                    case .failedOver:
                        await resolveAfterFailover(progress.unconfirmed)
                        progress.unconfirmed = []
                    case let outcome:
                        // The next owner confirms what was written: the senders wait for it.
                        logger.warning("confirmation refused: this node no longer owns the instance", metadata: ["outcome": "\(outcome)"])
                        end(.lost)
                    }
                    return
                }
                delay = .milliseconds(20)
            } catch {
                if error.code == .reply {
                    logger.error("confirmation failed", metadata: ["error": error.message])
                    end(.lost)
                    return
                }
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .milliseconds(250))
            }
            if ContinuousClock.now - heldAt >= Self.holdInterval {
                heldAt = .now
                node.holdReplies(progress.unconfirmed.compactMap { $0.reply.flatMap { ReplyAddress(bytes: $0.to) } })
                holds += 1
                if holds % 10 == 1 {
                    logger.warning("commits wait for cluster.minReplicas replicas", metadata: [
                        "replicas": String(replicas), "waiting": String(progress.unconfirmed.count),
                    ])
                }
            }
        }
    }

    /// Redis failed over: the entries written but not confirmed either reached the new
    /// master, which holds a prefix of the old history, or were lost with the old one. Those
    /// it holds are part of the state the new epoch starts from, and their senders get their
    /// reply now; the others left nothing behind, and their senders get `overloaded`. Read
    /// before the new epoch starts (this node still holds the lease); then the log ends.
    func resolveAfterFailover(_ unconfirmed: [CommitProgress.Unconfirmed]) async {
        logger.warning("Redis failed over since this epoch began: a new epoch starts from what the new master holds")
        var reached: LogPosition?
        let waiting = unconfirmed.contains { $0.reply != nil }
        for attempt in 0..<(waiting ? 5 : 0) {
            if let record = try? await node.store.load(address) {
                if record.epoch == epoch {
                    reached = record.tail.last?.position ?? LogPosition(version: record.version, sequence: 0)
                }
                break
            }
            try? await Task.sleep(for: .milliseconds(50 << attempt))
        }
        var refused: [(bytes: [UInt8], to: [UInt8])] = []
        for entry in unconfirmed {
            guard let reply = entry.reply else { continue }
            if let reached, entry.position <= reached, let to = ReplyAddress(bytes: reply.to) {
                node.answer(to, reply.bytes)
            } else {
                refused.append(reply)
            }
        }
        refuse(refused)
        end(.failedOver)
    }
}
