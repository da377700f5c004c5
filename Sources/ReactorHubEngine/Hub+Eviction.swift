import ReactorHubProtocol
#if canImport(Glibc)
import Glibc
#endif

/// Eviction of idle instances: their state stays in the store, their memory goes.
extension Hub {
    /// Removes from memory the instances that no session has joined for `idleEviction`
    /// and that run no effect, once the store holds their last state; the next join
    /// restores them with the same epoch, version and history.
    func evictIdleInstances(now: ContinuousClock.Instant) async {
        let candidates = state.withLock { state -> [InstanceSlot] in
            state.idleSince.compactMap { address, since in
                guard now - since >= configuration.idleEviction,
                      let slot = state.slots[address], let instance = slot.instance, instance.isIdle
                else { return nil }
                return slot
            }
        }
        guard !candidates.isEmpty else { return }
        await store.flush()
        let evicted = state.withLock { state -> [any HubInstance] in
            var evicted: [any HubInstance] = []
            for slot in candidates {
                guard state.slots[slot.address] === slot, state.joinedCount[slot.address] == nil,
                      state.idleSince[slot.address] != nil, slot.instance?.isIdle == true
                else { continue }
                state.slots[slot.address] = nil
                state.slotsByStream[slot.stream] = nil
                state.idleSince[slot.address] = nil
                if let instance = slot.instance { evicted.append(instance) }
            }
            return evicted
        }
        for instance in evicted {
            instance.evicted()
        }
        logger.debug("evicted idle instances", metadata: ["count": String(evicted.count)])
        if !evicted.isEmpty {
            // glibc keeps freed memory in its arenas; hand what the evicted instances held
            // back to the system.
            MemoryTrim.releaseFreedMemory()
        }
    }

    /// The addresses of the instances held in memory (tests and diagnostics).
    public var residentInstances: [String] {
        state.withLock { $0.slots.keys.map(\.description).sorted() }
    }
}

/// glibc's `malloc_trim` (in `<malloc.h>`, which the Glibc module does not import), looked
/// up once; nothing happens where it does not exist.
enum MemoryTrim {
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    static func releaseFreedMemory() {
        _ = trim?(0)
    }
}

extension Hub {
    /// The instance of `address` while it is in memory and loaded (tests, diagnostics).
    func instance(of address: String) -> (any HubInstance)? {
        guard let address = ReactorAddress(address) else { return nil }
        return state.withLock { $0.slots[address]?.instance }
    }
}
