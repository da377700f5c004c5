import Dispatch

/// A connection's identity timer: the auth timeout, or its token's expiry.
///
/// A dispatch timer source rather than `asyncAfter`, so that it can be cancelled when the
/// connection closes or its token is replaced: a pending `asyncAfter` keeps its closure until
/// the deadline, so every closed connection held on to a few hundred bytes until its token's
/// `exp` (days, for long-lived tokens under reconnect churn).
///
/// `@unchecked Sendable`: its one stored property is set in `init` and never changes, and a
/// dispatch source may be cancelled from any thread.
final class IdentityTimer: @unchecked Sendable {
    private let source: any DispatchSourceTimer

    /// Starts a timer that runs `body` once on a global queue after `delay`.
    init(after delay: Duration, _ body: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds))
        source.setEventHandler(handler: body)
        source.resume()
    }

    /// Stops the timer (if it has not fired) and releases its closure.
    func cancel() {
        source.cancel()
    }
}
