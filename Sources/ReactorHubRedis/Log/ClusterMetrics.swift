import ReactorHubEngine
import ReactorHubMetrics

/// What the cluster counts (`GET /metrics` when clustered).
final class ClusterMetrics: Sendable {
    /// Actions sent to the owner's inbox on another node.
    let forwarded = Counter()
    /// Times this node took an instance's lease and started applying its actions.
    let ownerships = Counter()
    /// Senders answered `overloaded` because no reply came in time.
    let replyTimeouts = Counter()
    /// Times the delivery probe found pub/sub silent (and the links were rebuilt).
    let deliverySilences = Counter()
}
