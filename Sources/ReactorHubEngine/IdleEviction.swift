public import ReactorHubLifecycle
import ReactorHubLocking

/// Evicts the hub's idle instances every `idleEviction / 2` (see `Hub.evictIdleInstances`),
/// as a service of its own.
public final class IdleEviction: Service {
    private let hub: Hub
    private let stop = Latch()

    /// Creates the eviction service of `hub`.
    public init(hub: Hub) {
        self.hub = hub
    }

    public var name: String { "eviction" }

    public func run() async throws {
        let interval = hub.configuration.idleEviction / 2
        while await !stop.wait(timeout: interval) {
            await hub.evictIdleInstances(now: .now)
        }
    }

    public func triggerGracefulShutdown() {
        stop.open()
    }
}
