/// Latency histogram: 1 µs buckets up to 1 s, 1 ms buckets up to 100 s, then one overflow
/// bucket; the exact maximum is kept aside. Recording is one increment, so it can run
/// per delivery.
struct LatencyHistogram {
    static let buckets = 1_000_000
    static let slowBuckets = 100_000
    private var counts: UnsafeMutablePointer<UInt32>
    private var slow: UnsafeMutablePointer<UInt32>
    private var overflow: Int = 0
    private(set) var count: Int = 0
    private(set) var maxNanos: UInt64 = 0
    private var sumMicros: Double = 0

    init() {
        counts = .allocate(capacity: Self.buckets)
        counts.initialize(repeating: 0, count: Self.buckets)
        slow = .allocate(capacity: Self.slowBuckets)
        slow.initialize(repeating: 0, count: Self.slowBuckets)
    }

    /// Frees the buckets (a histogram lives for one run).
    func release() {
        counts.deallocate()
        slow.deallocate()
    }

    @inline(__always)
    mutating func record(nanos: UInt64) {
        let micros = Int(nanos / 1000)
        if micros < Self.buckets {
            counts[micros] &+= 1
        } else if micros / 1000 < Self.slowBuckets {
            slow[micros / 1000] &+= 1
        } else {
            overflow += 1
        }
        count += 1
        sumMicros += Double(micros)
        if nanos > maxNanos { maxNanos = nanos }
    }

    /// The value (in µs) below which `fraction` of the samples fall.
    func percentileMicros(_ fraction: Double) -> Double {
        guard count > 0 else { return 0 }
        let rank = max(1, Int((Double(count) * fraction).rounded(.up)))
        var seen = 0
        for bucket in 0..<Self.buckets {
            seen += Int(counts[bucket])
            if seen >= rank { return Double(bucket) + 0.5 }
        }
        for bucket in 0..<Self.slowBuckets {
            seen += Int(slow[bucket])
            if seen >= rank { return min(Double(bucket) * 1000 + 500, Double(maxNanos) / 1000) }
        }
        return Double(maxNanos) / 1000
    }

    var meanMicros: Double { count > 0 ? sumMicros / Double(count) : 0 }

    /// `{"n":…,"p50":…,"p90":…,"p99":…,"max":…,"mean":…}` in microseconds.
    func summary() -> LatencySummary {
        LatencySummary(
            samples: count,
            p50: percentileMicros(0.50),
            p90: percentileMicros(0.90),
            p99: percentileMicros(0.99),
            max: Double(maxNanos) / 1000,
            mean: meanMicros
        )
    }
}

/// Percentiles of one latency distribution, in microseconds.
struct LatencySummary {
    var samples: Int
    var p50: Double
    var p90: Double
    var p99: Double
    var max: Double
    var mean: Double

    var json: String {
        "{\"n\":\(samples),\"p50\":\(fmt(p50)),\"p90\":\(fmt(p90)),\"p99\":\(fmt(p99)),\"max\":\(fmt(max)),\"mean\":\(fmt(mean))}"
    }

    var text: String {
        samples == 0 ? "no samples"
            : "p50 \(ms(p50)) ms  p90 \(ms(p90)) ms  p99 \(ms(p99)) ms  max \(ms(max)) ms  (\(samples) samples)"
    }
}

/// A number with at most `digits` decimals, for JSON and text.
func fmt(_ value: Double, _ digits: Int = 1) -> String {
    if !value.isFinite { return "0" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int(rounded)) }
    return String(rounded)
}

/// Microseconds shown as milliseconds with three decimals.
func ms(_ micros: Double) -> String { fmt(micros / 1000, 3) }
