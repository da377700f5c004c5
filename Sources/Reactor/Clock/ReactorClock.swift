/// The time source of a runtime's effects: `delay` schedules on it and `run` effects sleep on it
/// through `send.clock`. Inject `TestClock` to run delays in tests without waiting.
public protocol ReactorClock: Sendable {
    /// The time elapsed since the clock's origin.
    var now: Duration { get }

    /// Suspends the calling task for `duration`; throws `CancellationError` if it is cancelled.
    func sleep(for duration: Duration) async throws

    /// Calls `work` once, on any thread, after `duration`, unless the returned work is cancelled
    /// first.
    func schedule(after duration: Duration, _ work: @escaping @Sendable () -> Void) -> ScheduledWork
}

/// Work scheduled on a `ReactorClock`, which can still be cancelled.
public struct ScheduledWork: Sendable {
    private let onCancel: @Sendable () -> Void

    /// Creates a handle whose `cancel()` calls `cancel`; clocks build these.
    public init(cancel: @escaping @Sendable () -> Void) {
        self.onCancel = cancel
    }

    /// Prevents the work from running if it has not started; does nothing afterwards.
    public func cancel() {
        onCancel()
    }
}
