import ReactorHubLocking
public import ReactorHubLogging

/// The service that keeps this node's claims alive: every `renewInterval` it renews the
/// node's heartbeat (and the keys bound to it) and every instance lease it holds, all
/// leases in one round trip. A lease whose renewal is refused, or that could not be
/// renewed for a whole lease length (the link was down), is reported to `onLeaseLost`
/// and forgotten: the integrator stops applying actions to that instance.
public final class ClusterHeartbeat: Sendable {
    private let registry: NodeRegistry
    private let leases: InstanceLeases
    private let options: ClusterOptions
    private let logger: Logger
    private let onLeaseLost: @Sendable (Lease) -> Void
    private let held = Locked<[Lease: ContinuousClock.Instant]>([:])

    /// A heartbeat for `registry`'s node and the leases handed to `hold`.
    public init(
        registry: NodeRegistry,
        leases: InstanceLeases,
        options: ClusterOptions,
        logger: Logger,
        onLeaseLost: @escaping @Sendable (Lease) -> Void
    ) {
        self.registry = registry
        self.leases = leases
        self.options = options
        self.logger = logger
        self.onLeaseLost = onLeaseLost
    }

    /// Renews `lease` from now on (call right after acquiring it).
    public func hold(_ lease: Lease) {
        held.withLock { $0[lease] = ContinuousClock.now }
    }

    /// Stops renewing `lease` (before releasing it).
    public func drop(_ lease: Lease) {
        held.withLock { _ = $0.removeValue(forKey: lease) }
    }

    /// The leases being renewed.
    public var heldLeases: [Lease] {
        held.withLock { Array($0.keys) }
    }

    /// Beats every `renewInterval` until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            await beat()
            try? await Task.sleep(for: options.renewInterval)
        }
    }

    /// One round: the node's heartbeat, then every held lease.
    public func beat() async {
        do {
            try await registry.heartbeat()
        } catch {
            logger.debug("heartbeat failed", metadata: ["error": error.message])
        }
        let leases = heldLeases
        guard !leases.isEmpty else { return }
        let started = ContinuousClock.now
        var lost: [Lease] = []
        do {
            lost = try await self.leases.renew(leases)
            let kept = Set(leases).subtracting(lost)
            held.withLock { held in
                for lease in kept where held[lease] != nil {
                    held[lease] = started
                }
            }
        } catch {
            logger.debug("lease renewal failed", metadata: ["error": error.message])
            lost = held.withLock { held in held.filter { started - $0.value >= options.lease }.map(\.key) }
        }
        for lease in lost {
            held.withLock { _ = $0.removeValue(forKey: lease) }
            logger.info("lease lost", metadata: ["reactor": lease.address, "generation": String(lease.generation)])
            onLeaseLost(lease)
        }
    }
}
