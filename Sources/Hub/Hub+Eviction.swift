import Transport

/// Eviction of idle instances: their state stays in the store, their memory goes.
extension Hub {
    /// Every `idleEviction / 2`, evicts the instances that have had no subscriber and no
    /// running effect for `idleEviction`.
    func startEviction() {
        let interval = configuration.idleEviction / 2
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                await self?.evictIdleInstances(now: .now)
            }
        }
        eviction.withLock { $0 = task }
    }

    /// Removes idle instances from memory once the store holds their last state; the next
    /// join restores them with the same epoch, version and history.
    func evictIdleInstances(now: ContinuousClock.Instant) async {
        let candidates = state.withLock { state -> [any HubInstance] in
            state.idleSince.compactMap { address, since in
                guard now - since >= configuration.idleEviction,
                      let instance = state.instances[address], instance.subscriberCount == 0, instance.isIdle
                else { return nil }
                return instance
            }
        }
        guard !candidates.isEmpty else { return }
        await store.flush()
        let evicted = state.withLock { state -> Int in
            var evicted = 0
            for instance in candidates {
                guard let current = state.instances[instance.address], current === instance,
                      instance.subscriberCount == 0, instance.isIdle, state.idleSince[instance.address] != nil
                else { continue }
                state.instances[instance.address] = nil
                state.instancesByStream[instance.stream] = nil
                state.idleSince[instance.address] = nil
                evicted += 1
            }
            return evicted
        }
        logger.debug("evicted idle instances", metadata: ["count": String(evicted)])
    }

    /// The addresses of the instances held in memory (tests and diagnostics).
    public var residentInstances: [String] {
        state.withLock { $0.instances.keys.map(\.description).sorted() }
    }
}
