public import ReactorHubLifecycle
import ReactorHubLocking
import ReactorHubLogging

/// The hub as a service: it runs until asked to stop, then drains (CONFIG.md "SIGINT and
/// SIGTERM"): stop accepting, let running effects finish (at most the grace), answer new
/// actions, and those still waiting in instances, with `overloaded`, and make everything
/// durable. Closing the connections is the
/// transport's own shutdown, which runs after the hub's (`ServiceGroup` order).
extension Hub: Service {
    public var name: String { "hub" }

    public func run() async throws {
        await shutdownRequested.wait()
        await drain(grace: configuration.shutdownGrace)
    }

    public func triggerGracefulShutdown() {
        shutdownRequested.open()
    }

    /// Stops accepting, lets running effects finish (at most `grace`), answers new actions
    /// and waiting ones with `overloaded`, and flushes the store.
    public func drain(grace: Duration) async {
        let instances = state.withLock { state -> [any HubInstance] in
            state.draining = true
            return state.slots.values.compactMap(\.instance)
        }
        load.draining.store(true, ordering: .relaxed)
        transport.stopAccepting()
        // Not a task group: it would wait for its children, and an instance with a backlog
        // of actions is not idle for a long time; the grace must bound the wait.
        let idle = Latch()
        Task {
            await withTaskGroup(of: Void.self) { group in
                for instance in instances {
                    group.addTask { await instance.waitUntilIdle() }
                }
            }
            idle.open()
        }
        let settled = await idle.wait(timeout: grace)
        if !settled {
            logger.warning("shutdown grace elapsed with effects still running")
        }
        await store.flush()
        // Clustered: commit, snapshot and release every lease, so another node takes over at once.
        await cluster?.handOver()
    }

    /// The whole shutdown at once (tests, embedders without a service group): drain, then
    /// deliver what is queued and close every client with 1001.
    public func shutdown(grace: Duration) async {
        await drain(grace: grace)
        await transport.shutdown(.serverShutdown, grace: max(grace, .seconds(1)))
        logger.info("hub stopped")
    }
}
