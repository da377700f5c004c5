
/// A Prometheus histogram with fixed bucket bounds: an observation is a few relaxed
/// atomic adds (its bucket, the count, the sum in microseconds), no lock.
public final class Histogram: Sendable {
    /// The upper bounds of the buckets, in seconds, ascending (`+Inf` is implicit).
    public let bounds: [Double]
    private let buckets: [Counter]
    private let total = Counter()
    private let sumMicroseconds = Counter()

    /// Creates a histogram with `bounds` (seconds).
    public init(bounds: [Double]) {
        self.bounds = bounds.sorted()
        self.buckets = bounds.map { _ in Counter() }
    }

    /// Latencies from 100 µs to 10 s.
    public static func latency() -> Histogram {
        Histogram(bounds: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
    }

    /// Records one observation of `duration`.
    public func observe(_ duration: Duration) {
        let micro = Int(duration.components.seconds) * 1_000_000 + Int(duration.components.attoseconds / 1_000_000_000_000)
        let seconds = Double(micro) / 1_000_000
        if let bucket = bounds.firstIndex(where: { seconds <= $0 }) {
            buckets[bucket].increment()
        }
        total.increment()
        sumMicroseconds.increment(by: micro)
    }

    /// Cumulative counts per bound (then `+Inf`), the count and the sum in seconds.
    public var snapshot: (cumulative: [Int], count: Int, sum: Double) {
        var running = 0
        let cumulative = buckets.map { bucket -> Int in
            running += bucket.count
            return running
        }
        return (cumulative, total.count, Double(sumMicroseconds.count) / 1_000_000)
    }
}
