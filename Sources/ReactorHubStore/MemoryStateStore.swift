public import ReactorHubProtocol
import ReactorHubJSON
import ReactorHubLocking

/// Keeps instances in this process's memory only: nothing survives a restart. The hub
/// uses it to evict idle instances and restore them on the next join.
///
/// Every load is `.proven`: a change is recorded here before it is published, and
/// nothing outlives the process that published it.
public final class MemoryStateStore: StateStore {
    private struct Entry {
        var instance: StoredInstance
        /// Bytes of `instance.patches`.
        var patchBytes = 0
        var keepPatches = Int.max
        var keepBytes = Int.max
    }

    private let entries = Locked<[ReactorAddress: Entry]>([:])
    /// Whether an evicted instance's state is dropped (`persistence.kind` memory: a later
    /// join starts afresh in a new epoch) rather than kept for its next join.
    private let dropsEvicted: Bool

    /// Creates an empty store; with `dropsEvicted`, eviction hands an instance's memory back.
    public init(dropsEvicted: Bool = false) {
        self.dropsEvicted = dropsEvicted
    }

    public func evicted(_ address: ReactorAddress) {
        guard dropsEvicted else { return }
        _ = entries.withLock { $0.removeValue(forKey: address) }
    }

    public func record(_ change: StoredChange) {
        // One lookup: the entry is taken out of its slot, changed while uniquely held (no
        // copy of the patch list per change), and put back.
        entries.withLock { entries in
            Self.apply(change, to: &entries[change.address])
        }
    }

    private static func apply(_ change: StoredChange, to slot: inout Entry?) {
        var entry: Entry
        if let current = slot.take(), current.instance.epoch == change.epoch {
            entry = current
        } else {
            entry = Entry(instance: StoredInstance(epoch: change.epoch, version: change.version, state: change.state, patches: []))
        }
        entry.instance.version = change.version
        entry.instance.state = change.state
        entry.keepPatches = change.keepPatches
        entry.keepBytes = change.keepBytes
        if let patch = change.patch, change.keepPatches > 0 {
            // The list may grow to twice what is kept before it is trimmed, so trimming
            // costs O(1) per change.
            entry.instance.patches.append(patch)
            entry.patchBytes += patch.frame.count
            if entry.instance.patches.count >= 2 * change.keepPatches || entry.patchBytes / 2 > change.keepBytes {
                entry.instance.patches = entry.instance.patches.newest(count: change.keepPatches, bytes: change.keepBytes)
                entry.patchBytes = entry.instance.patches.reduce(0) { $0 + $1.frame.count }
            }
        }
        slot = entry
    }

    public func load(_ address: ReactorAddress) throws -> StoredInstance? {
        entries.withLock { entries in
            guard let entry = entries[address] else { return nil }
            var stored = entry.instance
            stored.patches = stored.patches.newest(count: entry.keepPatches, bytes: entry.keepBytes)
            return stored
        }
    }

    public func whenDurable(_ address: ReactorAddress, version: Int, _ body: @escaping @Sendable () -> Void) {
        body()
    }

    public func setAside(_ address: ReactorAddress, reason: String) {
        // Nothing outlives the process here, so there is nowhere to keep the old state.
        _ = entries.withLock { $0.removeValue(forKey: address) }
    }

    public func flush() async {}
}
