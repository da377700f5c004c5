public import ReactorHubLifecycle
import ReactorHubLocking

/// Samples, four times a second, what every connection's outbox holds against
/// `limits.outboundBudgetBytes` (past it, full sockets shed at a quarter of their limit,
/// so that many slow readers together cannot grow the daemon without bound) and the
/// resident memory against `limits.maxMemoryBytes` (`Hub.sampleMemory`).
public final class OutboundBudget: Service {
    private let hub: Hub
    private let stop = Latch()

    /// Creates the budget service of `hub`.
    public init(hub: Hub) {
        self.hub = hub
    }

    public var name: String { "outbound-budget" }

    public func run() async throws {
        while await !stop.wait(timeout: .milliseconds(250)) {
            hub.delivery.samplePressure(budget: hub.configuration.outboundBudgetBytes)
            hub.sampleMemory()
        }
    }

    public func triggerGracefulShutdown() {
        stop.open()
    }
}
