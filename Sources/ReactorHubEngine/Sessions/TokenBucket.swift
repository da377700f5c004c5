/// An action rate limit (per connection, or per user over HTTP): `rate` tokens per second, at most `burst` saved.
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
        refill(now: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Whole seconds until the next token (at least 1): an HTTP `Retry-After`.
    mutating func secondsUntilNext(now: ContinuousClock.Instant) -> Int {
        refill(now: now)
        return max(1, Int(((1 - tokens) / rate).rounded(.up)))
    }

    /// Whether the bucket is full again (nothing to remember about its owner).
    func isFull(now: ContinuousClock.Instant) -> Bool {
        var copy = self
        copy.refill(now: now)
        return copy.tokens >= burst
    }

    private mutating func refill(now: ContinuousClock.Instant) {
        let elapsed = now - last
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * rate)
    }
}
