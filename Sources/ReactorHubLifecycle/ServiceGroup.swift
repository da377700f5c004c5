public import ReactorHubLogging

/// Runs services in one task group and shuts them down in reverse order, each after the
/// one after it has finished (the SQLite writer outlives the hub that writes to it).
///
/// The shutdown starts when `shutdownSignal` returns (SIGINT or SIGTERM in the daemon) or
/// when any service's `run()` returns or throws on its own.
public struct ServiceGroup: Sendable {
    private let services: [any Service]
    private let shutdownSignal: @Sendable () async -> String
    private let logger: Logger

    /// Creates a group of `services`, started in this order and stopped in reverse.
    public init(services: [any Service], shutdownSignal: @escaping @Sendable () async -> String, logger: Logger) {
        self.services = services
        self.shutdownSignal = shutdownSignal
        self.logger = logger
    }

    /// Runs every service until they have all returned; rethrows the first error.
    public func run() async throws {
        enum Event: Sendable {
            case signal(String)
            case finished(Int, (any Error)?)
        }
        try await withThrowingTaskGroup(of: Event.self) { group in
            for (index, service) in services.enumerated() {
                group.addTask {
                    do {
                        try await service.run()
                        return .finished(index, nil)
                    } catch {
                        return .finished(index, error)
                    }
                }
            }
            group.addTask { .signal(await shutdownSignal()) }

            var finished = Set<Int>()
            var triggered = Set<Int>()
            var firstError: (any Error)?
            var shutdownStarted = false
            // The last service still running is asked to stop, once; the next one only
            // when it has returned.
            func shutDownNext() {
                guard let last = services.indices.last(where: { !finished.contains($0) }), !triggered.contains(last) else { return }
                triggered.insert(last)
                logger.debug("stopping service", metadata: ["service": services[last].name])
                services[last].triggerGracefulShutdown()
            }
            while finished.count < services.count, let event = try await group.next() {
                switch event {
                case .signal(let signal):
                    guard !shutdownStarted else { continue }
                    shutdownStarted = true
                    logger.info("shutting down", metadata: ["signal": signal])
                case .finished(let index, let error):
                    finished.insert(index)
                    if let error {
                        logger.error("service failed", metadata: ["service": services[index].name, "error": "\(error)"])
                        firstError = firstError ?? error
                    }
                    if !shutdownStarted {
                        shutdownStarted = true
                        logger.info("shutting down", metadata: ["reason": "\(services[index].name) ended"])
                    }
                }
                if shutdownStarted { shutDownNext() }
            }
            group.cancelAll()
            if let firstError { throw firstError }
        }
    }
}
