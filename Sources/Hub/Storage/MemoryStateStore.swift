import JSON
import Locking

/// Keeps instances in this process's memory only: nothing survives a restart. The hub
/// uses it to evict idle instances and restore them on the next join.
///
/// Every load is `.proven`: a change is recorded here before it is published, and
/// nothing outlives the process that published it.
public final class MemoryStateStore: StateStore {
    private let instances = Locked<[ReactorAddress: StoredInstance]>([:])

    /// Creates an empty store.
    public init() {}

    public func record(_ change: StoredChange) {
        instances.withLock { instances in
            if instances[change.address]?.epoch != change.epoch {
                instances[change.address] = StoredInstance(epoch: change.epoch, version: change.version, state: change.state, patches: [])
            }
            // Mutated in place (no copy of the patch list per change); the list may grow to
            // twice what is kept before it is trimmed, so trimming costs O(1) per change.
            instances[change.address]!.version = change.version
            instances[change.address]!.state = change.state
            if let patch = change.patch, change.keepPatches > 0 {
                instances[change.address]!.patches.append(patch)
                let count = instances[change.address]!.patches.count
                if count >= 2 * change.keepPatches {
                    instances[change.address]!.patches.removeFirst(count - change.keepPatches)
                }
            }
        }
    }

    public func load(_ address: ReactorAddress) throws -> StoredInstance? {
        instances.withLock { $0[address] }
    }

    public func whenDurable(_ address: ReactorAddress, version: Int, _ body: @escaping @Sendable () -> Void) {
        body()
    }

    public func setAside(_ address: ReactorAddress, reason: String) {
        // Nothing outlives the process here, so there is nowhere to keep the old state.
        _ = instances.withLock { $0.removeValue(forKey: address) }
    }

    public func flush() async {}
}
