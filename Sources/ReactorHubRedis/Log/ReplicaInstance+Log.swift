import ReactorHubEngine
import ReactorHubJSON
import ReactorHubProtocol

/// What a replica read from Redis: where its view starts, the log position after it, and
/// the replies its log holds for this node's senders (delivered after a reload, which
/// applies their entries without going through them one by one).
struct FetchedReplica: Sendable {
    var start: InstanceView.Start
    var position: LogPosition
    var replies: [(token: UInt64, reply: [UInt8])] = []
}

/// The follower side: reading the Redis log into the view, live entries in order, gaps
/// repaired from the stream, a reload when the log no longer chains or the epoch changed.
extension ReplicaInstance {
    /// The committed state, history and log position; nil when Redis holds nothing.
    func fetch() async throws -> FetchedReplica? {
        guard let stored = try await node.store.load(addressText) else { return nil }
        guard let snapshot = stored.snapshot, snapshot.epoch == stored.epoch else {
            throw ProtocolError(.internal, "\(view.address): no snapshot of epoch \(stored.epoch) in Redis")
        }
        let log = try await node.store.entries(of: addressText, after: LogPosition(version: 0, sequence: 0)) ?? []
        var state = try JSONParser().parse(snapshot.state)
        var version = snapshot.version
        var history: [PatchFrame] = []
        var position = LogPosition(version: snapshot.version, sequence: 0)
        var replies: [(token: UInt64, reply: [UInt8])] = []
        for entry in log where entry.epoch == stored.epoch {
            position = max(position, entry.position)
            if let reply = entry.reply, let to = entry.replyTo.flatMap(ReplyAddress.init(bytes:)), to.node == node.id {
                replies.append((to.token, reply))
            }
            guard let frame = frame(of: entry) else { continue }
            if let last = history.last, last.version != frame.base { history = [] }
            history.append(frame)
            if entry.version > version {
                guard frame.base == version else {
                    throw ProtocolError(.internal, "\(view.address): the log does not chain from the snapshot at \(version)")
                }
                state = try frame.withOperations { try JSONPatch.apply(JSONParser().parse(Array($0)), to: state) }
                version = entry.version
            }
        }
        if history.last?.version != version { history = [] }
        return FetchedReplica(
            start: .init(epoch: stored.epoch, version: version, state: state, history: history), position: position, replies: replies
        )
    }

    /// The patch frame of a patch entry, as every node writes it from the operations.
    func frame(of entry: LogEntry) -> PatchFrame? {
        guard let patch = entry.patch else { return nil }
        return context.codec.patch(addressText, version: entry.version, base: entry.effectiveBase, operations: patch)
    }

    /// Starts the view afresh from what was read; then the senders here whose replies its
    /// log holds get them (at most once each: a sender answered already is gone).
    func install(_ fetched: FetchedReplica) {
        view.install(fetched.start)
        position.withLock { $0 = fetched.position }
        needsRepair.store(false, ordering: .relaxed)
        for (token, reply) in fetched.replies {
            node.deliverReply(token, reply)
        }
    }

    /// Applies what the lane brings, in order. The repairs asked for in one batch (a link
    /// that came back, the HTTP reads' catch-ups: `catchUp(then:)`) are one read of the
    /// log after the batch's entries, which serves them all: reads that come faster than
    /// Redis answers share a read instead of queueing one each before the live entries.
    func applyLoop() async {
        while let batch = await events.next() {
            var entries: [LogEntry] = []
            var repairAsked = false
            var waiting: [@Sendable () -> Void] = []
            for event in batch {
                switch event {
                case .entry(let entry):
                    entries.append(entry)
                case .repair(let done):
                    repairAsked = true
                    if let done { waiting.append(done) }
                case .reload:
                    await apply(entries)
                    entries = []
                    await reload()
                }
            }
            await apply(entries)
            if repairAsked {
                await repair()
                for done in waiting { done() }
            }
        }
    }

    /// Applies live entries in order; a gap is repaired from the stream, another epoch or
    /// a patch that does not apply reloads.
    private func apply(_ entries: [LogEntry]) async {
        var rest = entries[...]
        while !rest.isEmpty {
            switch deliverRun(rest) {
            case .consumed(let count):
                rest = rest.dropFirst(count)
            case .gap:
                await repair()
                rest = rest.dropFirst()
            case .otherEpoch, .broken:
                await reload()
                return
            case .stale:
                return
            }
        }
    }

    /// Why `deliverRun` stopped before the end.
    enum RunEnd {
        /// This many entries were delivered or skipped (already held).
        case consumed(Int)
        /// The first entry does not continue the replica: something was missed.
        case gap
        /// The first entry is of another epoch.
        case otherEpoch
        /// The first entry's patch does not apply.
        case broken
        /// The replica waits for a new epoch.
        case stale
    }

    /// Hands the entries that continue the view to it, in log order, as records; skips
    /// those already held.
    func deliverRun(_ entries: ArraySlice<LogEntry>) -> RunEnd {
        let (epoch, held) = view.position
        // A stale view waits for a new epoch: one that shows up is read at once.
        guard !view.isStale else { return entries.contains { $0.epoch != epoch } ? .otherEpoch : .stale }
        let start = position.withLock { $0 }
        var version = held
        var records: [LogRecord] = []
        var entryOfRecord: [Int] = []
        var end: (index: Int, why: RunEnd)?
        for (index, entry) in entries.enumerated() {
            if entry.position <= start { continue }
            if entry.epoch != epoch {
                end = (index, .otherEpoch)
                break
            }
            if entry.isPatch, entry.version <= version { continue }
            records.append(record(of: entry))
            entryOfRecord.append(index)
            if entry.isPatch { version = entry.version }
        }
        var consumed = end?.index ?? entries.count
        var why = end?.why
        switch view.apply(records) {
        case .complete:
            break
        case .gap(let offset):
            consumed = entryOfRecord[offset]
            why = .gap
        case .broken(let offset):
            consumed = entryOfRecord[offset]
            why = .broken
        }
        if consumed > 0 {
            let last = entries[entries.startIndex + consumed - 1].position
            position.withLock { $0 = max($0, last) }
        }
        if consumed == 0, let why { return why }
        return .consumed(consumed)
    }

    /// A log entry as the view's record: a patch (with the reply riding in it), a reply to
    /// a sender, or a pulse (`to` = everyone).
    private func record(of entry: LogEntry) -> LogRecord {
        let reply = entry.reply.map { bytes in
            LoggedReply(message: context.codec.message(bytes), to: entry.replyTo.flatMap(ReplyAddress.init(bytes:)).map(ReplyTarget.node))
        }
        if let frame = frame(of: entry) {
            return .patch(frame, state: nil, reply: reply)
        }
        if entry.replyTo == ReplyAddress.everyone, let bytes = entry.reply {
            return .pulse(context.codec.message(bytes, label: .pulse(version: entry.position.version)))
        }
        return .reply(reply ?? LoggedReply(message: context.codec.message([UInt8]()), to: nil))
    }

    /// Reads the log from the last entry applied; reloads when it no longer chains.
    private func repair() async {
        needsRepair.store(false, ordering: .relaxed)
        let (epoch, version) = view.position
        let after = position.withLock { $0 }
        do {
            switch try await node.store.history(of: addressText, epoch: epoch, after: version) {
            case .missing: return markStale()
            case .notHeld: return await reload()
            case .held: break
            }
            guard let entries = try await node.store.entries(of: addressText, after: after) else {
                return markStale()
            }
            var rest = entries[...]
            while !rest.isEmpty {
                guard case .consumed(let count) = deliverRun(rest), rest.first?.epoch == epoch else { return await reload() }
                rest = rest.dropFirst(count)
            }
        } catch {
            needsRepair.store(true, ordering: .relaxed)
            logger.debug("repair failed; retried", metadata: ["error": "\(error)"])
        }
    }

    /// Reads the instance afresh; every subscriber gets a snapshot when it changed. When
    /// Redis holds less of the epoch than this node delivered (a failover lost its last
    /// writes), the view waits for the new epoch its owner starts instead: going back
    /// within one epoch would let two histories share it.
    func reload() async {
        do {
            guard let fetched = try await fetch() else { return markStale() }
            let (epoch, version) = view.position
            if fetched.start.epoch == epoch, fetched.start.version < version {
                if !view.isStale {
                    view.markStale()
                    logger.warning("Redis holds less of this epoch than was delivered; waiting for a new epoch", metadata: [
                        "epoch": epoch, "delivered": String(version), "held": String(fetched.start.version),
                    ])
                }
                return
            }
            install(fetched)
            logger.debug("replica reloaded", metadata: ["epoch": fetched.start.epoch, "version": String(fetched.start.version)])
        } catch {
            needsRepair.store(true, ordering: .relaxed)
            logger.debug("reload failed; retried", metadata: ["error": "\(error)"])
        }
    }

    private func markStale() {
        view.markStale()
        logger.info("Redis holds nothing of this instance any more; waiting for a new epoch")
    }
}
