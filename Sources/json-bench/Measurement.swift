/// Times a piece of work: `rounds` rounds of `iterations` calls each, after one warm-up
/// round; reports the median and the fastest round, per call.
struct Measurement {
    let name: String
    let iterations: Int
    let rounds: Int
    let median: Duration
    let fastest: Duration

    static func run(_ name: String, iterations: Int, rounds: Int = 15, _ body: () -> Int) -> Measurement {
        var checksum = 0
        for _ in 0..<iterations { checksum &+= body() }
        let clock = ContinuousClock()
        var perCall: [Duration] = []
        for _ in 0..<rounds {
            let start = clock.now
            for _ in 0..<iterations { checksum &+= body() }
            perCall.append((clock.now - start) / iterations)
        }
        Sink.consume(checksum)
        perCall.sort()
        return Measurement(name: name, iterations: iterations, rounds: rounds, median: perCall[rounds / 2], fastest: perCall[0])
    }

    var medianMicroseconds: Double { Self.microseconds(median) }

    static func microseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1e6 + Double(attoseconds) / 1e12
    }

    /// Megabytes (10^6 bytes) per second for `bytes` handled per call.
    func throughput(bytes: Int) -> Double {
        Double(bytes) / medianMicroseconds
    }

    func report(_ extra: String = "") {
        let median = Self.format(medianMicroseconds)
        let fastest = Self.format(Self.microseconds(fastest))
        print("  \(name.padding(to: 44)) median \(median) µs  (fastest \(fastest) µs; \(rounds)×\(iterations))\(extra.isEmpty ? "" : "  " + extra)")
    }

    static func format(_ value: Double, decimals: Int = 3) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = String(rounded)
        if let dot = text.firstIndex(of: ".") {
            let fraction = text[text.index(after: dot)...]
            if fraction.count < decimals { text += String(repeating: "0", count: decimals - fraction.count) }
        }
        return text
    }
}

/// Keeps results alive so the optimizer cannot drop the measured work.
enum Sink {
    nonisolated(unsafe) static var total = 0

    static func consume(_ value: Int) {
        total &+= value
    }
}

extension String {
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
