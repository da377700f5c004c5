/// Exponential backoff with jitter between reconnection attempts: each wait is a random
/// 50–100 % of a delay that doubles after every failure, up to a maximum, so that many
/// nodes that lost Redis together do not reconnect in step.
struct ReconnectBackoff: Sendable {
    let initial: Duration
    let maximum: Duration
    private var delay: Duration

    init(initial: Duration, maximum: Duration) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        self.delay = initial
    }

    /// The wait before the next attempt; doubles the delay for the one after.
    mutating func next() -> Duration {
        let wait = delay * Double.random(in: 0.5...1.0)
        delay = min(delay * 2, maximum)
        return wait
    }

    /// Back to the initial delay (after a successful connection).
    mutating func reset() {
        delay = initial
    }
}
