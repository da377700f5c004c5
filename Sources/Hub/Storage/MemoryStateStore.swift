import JSON
import Locking

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

    /// Creates an empty store.
    public init() {}

    public func record(_ change: StoredChange) {
        entries.withLock { entries in
            if entries[change.address]?.instance.epoch != change.epoch {
                entries[change.address] = Entry(
                    instance: StoredInstance(epoch: change.epoch, version: change.version, state: change.state, patches: [])
                )
            }
            // Mutated in place (no copy of the patch list per change); the list may grow to
            // twice what is kept before it is trimmed, so trimming costs O(1) per change.
            entries[change.address]!.instance.version = change.version
            entries[change.address]!.instance.state = change.state
            entries[change.address]!.keepPatches = change.keepPatches
            entries[change.address]!.keepBytes = change.keepBytes
            guard let patch = change.patch, change.keepPatches > 0 else { return }
            entries[change.address]!.instance.patches.append(patch)
            entries[change.address]!.patchBytes += patch.frame.count
            let entry = entries[change.address]!
            if entry.instance.patches.count >= 2 * change.keepPatches || entry.patchBytes / 2 > change.keepBytes {
                let kept = entry.instance.patches.newest(count: change.keepPatches, bytes: change.keepBytes)
                entries[change.address]!.instance.patches = kept
                entries[change.address]!.patchBytes = kept.reduce(0) { $0 + $1.frame.count }
            }
        }
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
