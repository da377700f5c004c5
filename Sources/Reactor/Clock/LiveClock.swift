import ReactorHubLocking
import Dispatch
/// The real, monotonic clock: sleeps with `Task.sleep` and schedules on Dispatch.
public struct LiveClock: ReactorClock {
    private let origin: ContinuousClock.Instant

    /// Creates a clock whose origin is now.
    public init() {
        self.origin = ContinuousClock.now
    }

    public var now: Duration {
        ContinuousClock.now - origin
    }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }

    public func schedule(after duration: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork {
        let pending = PendingWork(work)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Self.nanoseconds(duration))) {
            pending.take()?()
        }
        return ScheduledWork { _ = pending.take() }
    }

    /// `duration` in whole nanoseconds, clamped to what `DispatchTimeInterval` holds.
    static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow, whole < Int64(Int.max) - 1_000_000_000 else { return Int.max }
        return Int(whole + attoseconds / 1_000_000_000)
    }
}

/// The closure of a scheduled work item, dropped as soon as it runs or is cancelled so that a
/// cancelled long delay does not keep what it captured alive until its deadline.
private final class PendingWork: Sendable {
    private let work: Locked<(@Sendable () -> Void)?>

    init(_ work: @escaping @Sendable () -> Void) {
        self.work = Locked(work)
    }

    func take() -> (@Sendable () -> Void)? {
        work.withLock { work in
            defer { work = nil }
            return work
        }
    }
}
