import ReactorHubMetrics
import Synchronization

/// What one receiver's deliveries count (`GET /metrics`), by receiver index: never a label
/// per reactor.
final class WebhookMetrics: Sendable {
    /// Attempts, by outcome (`delivered`, `failed`).
    let attempts = LabeledCounter(label: "outcome", values: ["delivered", "failed"])
    /// Attempts after the first.
    let retries = Counter()
    /// Events dropped, by reason (`attempts`: all failed; `queue`: the queue was full).
    let dropped = LabeledCounter(label: "reason", values: ["attempts", "queue"])
    /// Bytes of bodies queued.
    let queueBytes = Atomic<Int>(0)
}
