import Locking

/// Counts events by a bounded set of reasons (token refusals by reason): what the metrics
/// show, never keyed by anything a client chooses freely.
final class ReasonCounter: Sendable {
    private let counts = Locked<[String: Int]>([:])

    func record(_ reason: String) {
        counts.withLock { $0[reason, default: 0] += 1 }
    }

    /// The counts so far, by reason.
    var snapshot: [String: Int] {
        counts.withLock { $0 }
    }
}
