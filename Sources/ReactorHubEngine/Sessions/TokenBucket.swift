/// The per-connection action rate limit: `rate` tokens per second, at most `burst` saved.
struct TokenBucket {
    let rate: Double
    let burst: Double
    private var tokens: Double
    private var last: ContinuousClock.Instant

    init(ratePerSecond: Int, burst: Int, now: ContinuousClock.Instant) {
        self.rate = Double(ratePerSecond)
        self.burst = Double(max(burst, 1))
        self.tokens = Double(max(burst, 1))
        self.last = now
    }

    /// Takes one token if there is one.
    mutating func take(now: ContinuousClock.Instant) -> Bool {
        let elapsed = now - last
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * rate)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
