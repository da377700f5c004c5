import ReactorHubProtocol
import Foundation
import ReactorHubStore
import ReactorHubJSON

/// The changes recorded and not yet committed, the batch being committed, and who waits
/// for durability. Shared by the recording threads and the writer thread.
///
/// Safety of `@unchecked Sendable`: every stored property is touched only while holding
/// `condition`'s lock.
final class PendingBatches: @unchecked Sendable {
    /// The latest change of one instance within a batch.
    struct Entry {
        var epoch: String
        var version: Int
        var state: JSONValue
        var patches: [StoredPatch]
        var keepPatches: Int
        var keepBytes: Int = .max
    }

    struct Batch {
        var entries: [ReactorAddress: Entry] = [:]
        var setAsides: [(address: ReactorAddress, reason: String)] = []
        var changeCount = 0
        /// The sequence number of the last change in the batch.
        var lastSequence = 0

        var isEmpty: Bool { entries.isEmpty && setAsides.isEmpty }
    }

    private struct Waiter {
        var address: ReactorAddress
        var version: Int
        var body: @Sendable () -> Void
    }

    private let condition = NSCondition()
    private var batch = Batch()
    private var inFlight: Batch?
    private var firstPendingAt: ContinuousClock.Instant?
    private var sequence = 0
    private var durableSequence = 0
    private var durableVersions: [ReactorAddress: Int] = [:]
    private var waiters: [Waiter] = []
    private var flushWaiters: [(sequence: Int, body: @Sendable () -> Void)] = []
    private var urgent = false
    private var running = true

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    /// Adds a change; returns true when the writer should be woken now.
    func add(_ change: StoredChange, flushChanges: Int) -> Bool {
        locked {
            sequence += 1
            if batch.isEmpty { firstPendingAt = .now }
            var entry = batch.entries[change.address]
            if entry == nil || entry?.epoch != change.epoch {
                entry = Entry(epoch: change.epoch, version: change.version, state: change.state, patches: [], keepPatches: change.keepPatches)
            }
            entry!.version = change.version
            entry!.state = change.state
            entry!.keepPatches = change.keepPatches
            entry!.keepBytes = change.keepBytes
            if let patch = change.patch {
                entry!.patches.append(patch)
                if entry!.patches.count > 2 * change.keepPatches || entry!.patches.count % 64 == 0 {
                    entry!.patches = entry!.patches.newest(count: change.keepPatches, bytes: change.keepBytes)
                }
            }
            batch.entries[change.address] = entry
            batch.changeCount += 1
            batch.lastSequence = sequence
            return batch.changeCount == 1 || batch.changeCount >= flushChanges
        }
    }

    /// Registers `body` for when `version` of `address` is durable; true when it already is.
    func addWaiter(_ address: ReactorAddress, version: Int, _ body: @escaping @Sendable () -> Void) -> Bool {
        locked {
            if version <= (durableVersions[address] ?? 0) {
                return true
            }
            waiters.append(Waiter(address: address, version: version, body: body))
            urgent = true
            return false
        }
    }

    /// Registers `body` for when everything recorded so far is durable; true when it is.
    func addFlushWaiter(_ body: @escaping @Sendable () -> Void) -> Bool {
        locked {
            if batch.isEmpty && inFlight == nil { return true }
            flushWaiters.append((sequence, body))
            urgent = true
            return false
        }
    }

    func setAside(_ address: ReactorAddress, reason: String) {
        locked {
            if batch.isEmpty { firstPendingAt = .now }
            batch.entries[address] = nil
            batch.setAsides.append((address, reason))
            durableVersions[address] = nil
        }
    }

    /// `stored` (read from disk) updated with the changes not committed yet.
    func overlay(_ address: ReactorAddress, on stored: StoredInstance?) -> StoredInstance? {
        locked {
            var result = stored
            if let durable = stored?.version {
                durableVersions[address] = max(durableVersions[address] ?? 0, durable)
            }
            for entry in [inFlight?.entries[address], batch.entries[address]].compactMap({ $0 }) {
                if var current = result, current.epoch == entry.epoch {
                    current.version = entry.version
                    current.state = entry.state
                    current.patches = (current.patches + entry.patches).newest(count: entry.keepPatches, bytes: entry.keepBytes)
                    result = current
                } else {
                    result = StoredInstance(
                        epoch: entry.epoch, version: entry.version, state: entry.state,
                        patches: entry.patches.newest(count: entry.keepPatches, bytes: entry.keepBytes)
                    )
                }
            }
            return result
        }
    }

    func wake() {
        locked { condition.signal() }
    }

    /// Changes recorded and not committed yet.
    var pendingCount: Int {
        locked { batch.changeCount + (inFlight?.changeCount ?? 0) }
    }

    /// Whether `stop()` was called.
    var isStopping: Bool {
        locked { !running }
    }

    func stop() {
        locked {
            running = false
            condition.signal()
        }
    }

    /// Blocks the writer until a batch is due and takes it; nil once stopped and empty.
    func nextBatch(flushInterval: Duration, flushChanges: Int) -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if batch.isEmpty {
                if !running { return nil }
                condition.wait()
                continue
            }
            let due = (firstPendingAt ?? .now) + flushInterval
            let now = ContinuousClock.now
            if urgent || !running || batch.changeCount >= flushChanges || now >= due {
                let taken = batch
                batch = Batch()
                inFlight = taken
                urgent = false
                firstPendingAt = nil
                return taken
            }
            let remaining = due - now
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
    }

    /// Marks `batch` durable and returns the callbacks it satisfies, to run outside the lock.
    func committed(_ committed: Batch) -> [@Sendable () -> Void] {
        locked {
            inFlight = nil
            durableSequence = max(durableSequence, committed.lastSequence)
            for (address, entry) in committed.entries {
                durableVersions[address] = max(durableVersions[address] ?? 0, entry.version)
            }
            var ready: [@Sendable () -> Void] = []
            waiters.removeAll { waiter in
                guard waiter.version <= (durableVersions[waiter.address] ?? 0) else { return false }
                ready.append(waiter.body)
                return true
            }
            flushWaiters.removeAll { waiter in
                guard waiter.sequence <= durableSequence else { return false }
                ready.append(waiter.body)
                return true
            }
            if !waiters.isEmpty || !flushWaiters.isEmpty { urgent = true }
            return ready
        }
    }

    /// Puts a batch that failed to commit back in front of what was recorded since.
    func requeue(_ failed: Batch) {
        locked {
            inFlight = nil
            var merged = failed
            for (address, newer) in batch.entries {
                if var older = merged.entries[address], older.epoch == newer.epoch {
                    older.version = newer.version
                    older.state = newer.state
                    older.patches = (older.patches + newer.patches).newest(count: newer.keepPatches, bytes: newer.keepBytes)
                    older.keepPatches = newer.keepPatches
                    older.keepBytes = newer.keepBytes
                    merged.entries[address] = older
                } else {
                    merged.entries[address] = newer
                }
            }
            merged.setAsides += batch.setAsides
            merged.changeCount += batch.changeCount
            merged.lastSequence = max(failed.lastSequence, batch.lastSequence)
            batch = merged
            if firstPendingAt == nil { firstPendingAt = .now }
        }
    }
}
