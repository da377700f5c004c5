import ReactorHubLocking
public import ReactorHubLogging

/// Proves that pub/sub delivers (shared/CLUSTER.md "Delivery proves itself"): every
/// `interval` the node publishes a numbered message on its own service channel
/// (`PREFIX:probe:NODE`), which its subscriber listens to, and expects it back within
/// `patience`. When one does not come back (a pub/sub link that went silent, say after a
/// failover, while publishes still succeed), `silentReason` says so for `/readyz` and
/// `onSilent` rebuilds the links; it clears once a probe published after that comes back.
///
/// A publish that fails (the command link is down) is not a probe: that link's own state
/// is reported. Long-running: `run()` until its task is cancelled.
public final class DeliveryProbe: Sendable {
    /// The service channel, this node's own.
    public let channel: String
    private let client: RedisClient
    private let interval: Duration
    private let logger: Logger
    private let state: Locked<ProbeState>

    /// A probe of the channel `channel`, published through `client`.
    public init(channel: String, client: RedisClient, interval: Duration = .seconds(1), patience: Duration = .seconds(2), logger: Logger) {
        self.channel = channel
        self.client = client
        self.interval = interval
        self.logger = logger
        self.state = Locked(ProbeState(patience: patience))
    }

    /// Why delivery is not proven now; nil while probes come back.
    public var silentReason: String? {
        state.withLock { state in
            state.silentSince.map { _ in
                "cluster delivery silent: a probe on \(channel) did not come back within \(state.patience); pub/sub link rebuilt, waiting for a probe to come back"
            }
        }
    }

    /// A message of the probe's channel came back (on the subscriber's thread).
    public func received(_ payload: [UInt8]) {
        guard let number = UInt64(String(decoding: payload, as: UTF8.self)) else { return }
        state.withLock { $0.received(number) }
    }

    /// Publishes a probe every `interval` and checks the ones out; `onSilent` runs once each
    /// time delivery turns silent.
    public func run(onSilent: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled {
            let number = state.withLock { $0.take() }
            do {
                _ = try await client.send(["PUBLISH", RedisArgument(channel), RedisArgument(String(number))])
                state.withLock { $0.published(number, at: .now) }
            } catch {
                logger.debug("delivery probe not published", metadata: ["error": error.message])
            }
            try? await Task.sleep(for: interval)
            if state.withLock({ $0.check(at: .now) }) {
                logger.warning("pub/sub delivery silent: rebuilding the links and resyncing replicas", metadata: ["channel": channel])
                onSilent()
            }
        }
    }
}
