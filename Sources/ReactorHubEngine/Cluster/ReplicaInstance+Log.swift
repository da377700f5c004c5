import ReactorHubProtocol
import ReactorHubRedis
import ReactorHubJSON
import ReactorHubWebSocketServer

/// What a replica read from Redis: the committed state with its history.
struct FetchedReplica: Sendable {
    var epoch: String
    var version: Int
    var state: JSONValue
    var history: PatchHistory
    var position: LogPosition

    func install<R>(into view: inout ReplicaInstance<R>.View) {
        view.epoch = epoch
        view.version = version
        view.state = state
        view.stateText = nil
        view.history = history
        view.position = position
        view.stale = false
        view.needsRepair = false
    }
}

/// A patch entry of the log as a frame to deliver and the operations to apply.
struct LoggedPatch {
    let frame: PatchFrame
    let operations: JSONValue

    /// Parses the entry's frame: `{"type":"patch",…,"patch":OPERATIONS}` with the
    /// operations last, so that the frame delivered keeps the owner's bytes.
    init?(_ entry: LogEntry, address: String) {
        guard let bytes = entry.frame else { return nil }
        let marker = Array(#""patch":"#.utf8)
        guard bytes.count > marker.count + 1,
              let start = (0...(bytes.count - marker.count)).first(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) })
        else { return nil }
        let operations = bytes[(start + marker.count)..<(bytes.count - 1)]
        guard let parsed = try? JSONParser().parse(Array(operations)) else { return nil }
        self.frame = PatchFrame(address: address, version: entry.version, base: entry.effectiveBase, operations: operations)
        self.operations = parsed
    }
}

/// The replica side: fetching, applying live entries in order, repairing gaps from the
/// stream, reloading when the history no longer chains or the epoch changed.
extension ReplicaInstance {
    /// The committed state, history and log position; nil when Redis holds nothing.
    func fetch() async throws -> FetchedReplica? {
        guard let stored = try await node.store.load(addressText) else { return nil }
        guard let snapshot = stored.snapshot, snapshot.epoch == stored.epoch else {
            throw ProtocolError(.internal, "\(address): no snapshot of epoch \(stored.epoch) in Redis")
        }
        let log = try await node.store.entries(of: addressText, after: LogPosition(version: 0, sequence: 0)) ?? []
        var state = try JSONParser().parse(snapshot.state)
        var version = snapshot.version
        var history = PatchHistory(capacity: context.historyCapacity)
        var historyVersion: Int?
        var position = LogPosition(version: snapshot.version, sequence: 0)
        for entry in log where entry.epoch == stored.epoch {
            position = max(position, entry.position)
            guard entry.isPatch, let patch = LoggedPatch(entry, address: addressText) else { continue }
            if historyVersion != nil, historyVersion != entry.effectiveBase {
                history = PatchHistory(capacity: context.historyCapacity)
            }
            history.append(patch.frame)
            historyVersion = entry.version
            if entry.version > version {
                guard entry.effectiveBase == version else {
                    throw ProtocolError(.internal, "\(address): the log does not chain from the snapshot at \(version)")
                }
                state = try JSONPatch.apply(patch.operations, to: state)
                version = entry.version
            }
        }
        if historyVersion != version {
            history = PatchHistory(capacity: context.historyCapacity)
        }
        return FetchedReplica(epoch: stored.epoch, version: version, state: state, history: history, position: position)
    }

    func applyLoop() async {
        while let batch = await events.next() {
            var entries: [LogEntry] = []
            for event in batch {
                if case .entry(let entry) = event {
                    entries.append(entry)
                    continue
                }
                await apply(entries)
                entries = []
                switch event {
                case .repair: await repair()
                case .reload: await reload()
                case .entry: break
                }
            }
            await apply(entries)
        }
    }

    /// Applies live entries in order: runs that continue the replica are delivered at once
    /// (a long run as frames spanning several versions, as the owner of one node does);
    /// a gap is repaired from the stream, another epoch reloads.
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

    /// Reads the log from the last entry applied; reloads when it no longer chains.
    private func repair() async {
        let (epoch, position) = view.withLock { view -> (String, LogPosition) in
            view.needsRepair = false
            return (view.epoch, view.position)
        }
        do {
            let version = view.withLock { $0.version }
            switch try await node.store.history(of: addressText, epoch: epoch, after: version) {
            case .missing: return markStale()
            case .notHeld: return await reload()
            case .held: break
            }
            guard let entries = try await node.store.entries(of: addressText, after: position) else {
                return markStale()
            }
            var rest = entries[...]
            while !rest.isEmpty {
                guard case .consumed(let count) = deliverRun(rest), rest.first?.epoch == epoch else { return await reload() }
                rest = rest.dropFirst(count)
            }
        } catch {
            view.withLock { $0.needsRepair = true }
            logger.debug("repair failed; retried", metadata: ["error": "\(error)"])
        }
    }

    /// Reads the instance afresh; every subscriber gets a snapshot when it changed.
    func reload() async {
        do {
            guard let fetched = try await fetch() else { return markStale() }
            view.withLock { view in
                let changed = view.stale || view.epoch != fetched.epoch || view.version != fetched.version
                fetched.install(into: &view)
                guard changed, !view.subscribers.isEmpty else { return }
                context.metrics.snapshots.increment("resync")
                context.delivery.send([.snapshot(stream, snapshot(&view, ref: nil))], to: view.subscribers)
            }
            logger.debug("replica reloaded", metadata: ["epoch": fetched.epoch, "version": String(fetched.version)])
        } catch {
            view.withLock { $0.needsRepair = true }
            logger.debug("reload failed; retried", metadata: ["error": "\(error)"])
        }
    }

    private func markStale() {
        view.withLock { $0.stale = true }
        logger.info("Redis holds nothing of this instance any more; waiting for a new epoch")
    }

    /// Delivers the entries that continue the replica, in log order: each reply to this
    /// node's sender (before the patches after it), each pulse (after the patches before
    /// it), the patches as one frame per version, or as frames spanning several versions
    /// for a run of more than `ReactorInstance.coalescingThreshold`.
    func deliverRun(_ entries: ArraySlice<LogEntry>) -> RunEnd {
        view.withLock { view in
            guard !view.stale else { return .stale }
            var frames: [PatchFrame] = []
            var consumed = 0
            func flush() {
                guard !frames.isEmpty else { return }
                send(frames, to: view.subscribers)
                frames = []
            }
            for entry in entries {
                if entry.position <= view.position {
                    consumed += 1
                    continue
                }
                if entry.epoch != view.epoch {
                    flush()
                    return consumed == 0 ? .otherEpoch : .consumed(consumed)
                }
                if entry.isPatch, entry.version <= view.version {
                    view.position = entry.position
                    consumed += 1
                    continue
                }
                var patched: (LoggedPatch, JSONValue)?
                if entry.isPatch {
                    guard entry.effectiveBase == view.version else {
                        flush()
                        return consumed == 0 ? .gap : .consumed(consumed)
                    }
                    guard let patch = LoggedPatch(entry, address: addressText),
                          let state = try? JSONPatch.apply(patch.operations, to: view.state)
                    else {
                        flush()
                        return consumed == 0 ? .broken : .consumed(consumed)
                    }
                    patched = (patch, state)
                }
                if let reply = entry.reply, let to = entry.replyTo {
                    if to == ReplyAddress.everyone {
                        flush()
                        context.delivery.send([.pulse(stream, OutboundMessage(reply))], to: view.subscribers)
                    } else if let address = ReplyAddress(bytes: to), address.node == node.id, let sender = node.takeReply(address.token) {
                        context.delivery.send(.reply(OutboundMessage(reply)), to: sender.output)
                    }
                }
                if let (patch, state) = patched {
                    view.state = state
                    view.version = entry.version
                    view.stateText = nil
                    view.history.append(patch.frame)
                    frames.append(patch.frame)
                }
                view.position = entry.position
                consumed += 1
            }
            flush()
            return .consumed(consumed)
        }
    }

    /// Sends a run of frames: as they are when short, merged (each merged frame kept under
    /// delivery's merged-frame limit) when long.
    private func send(_ frames: [PatchFrame], to subscribers: [ConnectionOutput]) {
        guard !subscribers.isEmpty else { return }
        guard frames.count > ReactorInstance<R>.coalescingThreshold else {
            context.delivery.send(frames.map { .patch(stream, $0) }, to: subscribers)
            return
        }
        let limit = context.delivery.limits.mergedFrameBytes
        var merged: [Outgoing] = []
        var start = 0
        while start < frames.count {
            var end = start + 1
            var size = frames[start].operationsCount
            while end < frames.count, size + frames[end].operationsCount <= limit {
                size += frames[end].operationsCount
                end += 1
            }
            merged.append(.patch(stream, PatchFrame.merge(frames[start..<end])))
            start = end
        }
        context.delivery.send(merged, to: subscribers)
    }
}
