/// When a failed delivery is tried again (API.md "Webhooks"): the n-th retry waits
/// 2^(n-1) s, ± 20 % of jitter, and never more than 60 s.
struct WebhookRetry {
    /// The longest wait.
    static let maximum: Duration = .seconds(60)

    /// The wait before retry `retry` (1 for the first), with `random` in 0...1 placing it
    /// within the jitter (0.5: no jitter).
    static func delay(beforeRetry retry: Int, random: Double) -> Duration {
        let base = Double(1 << min(max(retry - 1, 0), 16))
        let jittered = base * (0.8 + 0.4 * min(max(random, 0), 1))
        return min(.milliseconds(Int((jittered * 1000).rounded())), maximum)
    }
}
