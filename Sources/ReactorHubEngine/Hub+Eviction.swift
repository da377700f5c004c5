import ReactorHubProtocol
import ReactorHubMetrics
#if canImport(Glibc)
import Glibc
#endif

/// Eviction of idle instances: their state stays in the store, their memory goes.
extension Hub {
    /// Removes from memory the instances that no session has joined for `idleEviction`
    /// and that run no effect, once the store holds their last state; the next join
    /// restores them with the same epoch, version and history.
    func evictIdleInstances(now: ContinuousClock.Instant, idleFor: Duration? = nil) async {
        let idleFor = idleFor ?? configuration.idleEviction
        let candidates = state.withLock { state -> [InstanceSlot] in
            state.idleSince.compactMap { address, since in
                guard now - since >= idleFor,
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
                state.release(slot)
                state.slots[slot.address] = nil
                state.slotsByStream[slot.stream] = nil
                state.idleSince[slot.address] = nil
                if let instance = slot.instance { evicted.append(instance) }
            }
            return evicted
        }
        for instance in evicted {
            if let events = configuration.events, instance.isOwner {
                events.emit(.evicted, in: instance.address) {
                    let (epoch, version) = instance.position
                    return .evicted(instance.address, epoch: epoch, version: version)
                }
            }
            instance.evicted()
            store.evicted(instance.address)
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

extension Hub {
    /// Samples the resident memory against `limits.maxMemoryBytes`: past 90 % of it, joins
    /// that create instances and actions are refused `overloaded` until it is back under,
    /// and idle instances are evicted at once rather than after `idleEviction`.
    func sampleMemory() {
        guard let limit = configuration.maxMemoryBytes else { return }
        let resident = ProcessMetrics.residentMemoryBytes
        let over = resident > limit / 10 * 9
        if memoryPressure.exchange(over, ordering: .relaxed) != over {
            logger.warning(
                over ? "memory past 90% of limits.maxMemoryBytes: new instances and actions are refused" : "memory back under 90% of limits.maxMemoryBytes",
                metadata: ["resident": String(resident), "limit": String(limit)]
            )
        }
        if over {
            Task { await evictIdleInstances(now: .now, idleFor: .zero) }
        }
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
