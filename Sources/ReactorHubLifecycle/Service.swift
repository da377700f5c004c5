/// A long-running part of the daemon (swift-service-lifecycle's shape): `run()` serves
/// until a graceful shutdown is asked for and has completed, then returns.
public protocol Service: Sendable {
    /// A name for logs.
    var name: String { get }
    /// Serves until `triggerGracefulShutdown()` was called and the shutdown completed.
    func run() async throws
    /// Asks `run()` to finish gracefully; returns at once. Called at most once.
    func triggerGracefulShutdown()
}
