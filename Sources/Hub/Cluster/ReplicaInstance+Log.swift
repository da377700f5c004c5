import Cluster
import JSON
import Transport

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
        for await event in eventStreamForLoop {
            switch event {
            case .entry(let entry): await apply(entry)
            case .repair: await repair()
            case .reload: await reload()
            }
        }
    }

    private func apply(_ entry: LogEntry) async {
        let (epoch, version, position, stale) = view.withLock { ($0.epoch, $0.version, $0.position, $0.stale) }
        if stale || entry.position <= position { return }
        if entry.epoch != epoch { return await reload() }
        if entry.isPatch {
            if entry.version <= version {
                view.withLock { $0.position = max($0.position, entry.position) }
                return
            }
            if entry.effectiveBase != version { return await repair() }
        }
        if !deliver(entry) { await reload() }
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
            for entry in entries {
                let version = view.withLock { $0.version }
                if entry.epoch != epoch { return await reload() }
                if entry.isPatch, entry.version <= version { continue }
                if entry.isPatch, entry.effectiveBase != version { return await reload() }
                if !deliver(entry) { return await reload() }
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

    /// Delivers one entry in log order: its reply (to this node's sender) or pulse, then
    /// its patch. False when the patch does not apply (reload).
    private func deliver(_ entry: LogEntry) -> Bool {
        view.withLock { view in
            var patched: (LoggedPatch, JSONValue)?
            if entry.isPatch {
                guard let patch = LoggedPatch(entry, address: addressText),
                      let state = try? JSONPatch.apply(patch.operations, to: view.state)
                else { return false }
                patched = (patch, state)
            }
            if let reply = entry.reply, let to = entry.replyTo {
                if to == ReplyAddress.everyone {
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
                context.delivery.send([.patch(stream, patch.frame)], to: view.subscribers)
            }
            view.position = max(view.position, entry.position)
            return true
        }
    }
}
