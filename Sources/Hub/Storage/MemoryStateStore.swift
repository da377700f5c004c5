import JSON
import Synchronization

/// Keeps instances in this process's memory only: nothing survives a restart. The hub
/// uses it to evict idle instances and restore them on the next join.
public final class MemoryStateStore: StateStore {
    private let instances = Mutex<[ReactorAddress: StoredInstance]>([:])
    private let setAsideRows = Mutex<[(ReactorAddress, StoredInstance, String)]>([])

    /// Creates an empty store.
    public init() {}

    public func load(_ address: ReactorAddress) throws -> StoredInstance? {
        instances.withLock { $0[address] }
    }

    public func record(_ change: StoredChange) {
        instances.withLock { instances in
            var stored = instances[change.address]
            if stored == nil || stored?.epoch != change.epoch {
                stored = StoredInstance(epoch: change.epoch, version: change.version, state: change.state, patches: [])
            }
            stored!.version = change.version
            stored!.state = change.state
            if let patch = change.patch {
                stored!.patches.append(patch)
                let oldest = change.version - change.keepPatches
                stored!.patches.removeAll { $0.version <= oldest }
            }
            instances[change.address] = stored
        }
    }

    public func whenDurable(_ address: ReactorAddress, version: Int, _ body: @escaping @Sendable () -> Void) {
        body()
    }

    public func setAside(_ address: ReactorAddress, reason: String) {
        guard let stored = instances.withLock({ $0.removeValue(forKey: address) }) else { return }
        setAsideRows.withLock { $0.append((address, stored, reason)) }
    }

    public func flush() async {}
}
