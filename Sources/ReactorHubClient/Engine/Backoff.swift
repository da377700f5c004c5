import Foundation

/// The delay before each reconnect attempt: exponential from `initial`, capped at
/// `maximum`, minus up to `jitter` of itself at random so that many clients dropped at
/// once spread out (`min(max, initial × factor^n) × (1 − jitter × random)`, as the
/// JavaScript client does).
struct Backoff: Sendable {
    var initial: Duration
    var maximum: Duration
    var factor: Double
    var jitter: Double

    /// The delay before attempt `attempt` (0 for the first reconnect), given a random
    /// number in `0..<1`.
    func delay(attempt: Int, random: Double) -> Duration {
        let initialSeconds = initial.seconds
        let capped = min(maximum.seconds, initialSeconds * pow(factor, Double(min(attempt, 64))))
        let jittered = capped * (1 - jitter * min(max(random, 0), 1))
        return .microseconds(Int64((jittered * 1_000_000).rounded()))
    }

}

extension Duration {
    /// The duration in seconds, as a double.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
