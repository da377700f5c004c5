/// An action rate limit (per connection, or per user over HTTP): `rate` tokens per second, at most `burst` saved.
///
/// 24 bytes: every session holds two, inline in the hub's table of sessions (whose slots
/// outnumber the sessions up to twice over), so the size counts per connection
/// (BENCHMARKS.md, "Idle memory per connection (issue 38)").
struct TokenBucket {
    private let rateValue: Float
    private let burstValue: Float
    private var tokens: Double
    /// When the bucket was last refilled: nanoseconds since `origin`.
    private var last: Int64

    /// The reference instant of `last`.
    private static let origin = ContinuousClock.now

    var rate: Double { Double(rateValue) }
    var burst: Double { Double(burstValue) }

    init(ratePerSecond: Int, burst: Int, now: ContinuousClock.Instant) {
        self.rateValue = Float(ratePerSecond)
        self.burstValue = Float(max(burst, 1))
        self.tokens = Double(max(burst, 1))
        self.last = Self.nanoseconds(now)
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
        let current = Self.nanoseconds(now)
        let elapsed = current &- last
        last = current
        tokens = min(burst, tokens + Double(elapsed) / 1e9 * rate)
    }

    private static func nanoseconds(_ instant: ContinuousClock.Instant) -> Int64 {
        let offset = (instant - origin).components
        return offset.seconds &* 1_000_000_000 &+ offset.attoseconds / 1_000_000_000
    }
}
