import Dispatch
import Locking
import Transport

/// What a connection's identity deadline is for.
enum IdentityDeadline: Sendable {
    /// The auth timeout of a connection that has not authenticated (`auth.timeoutMs`).
    case authTimeout
    /// Its token's `exp` plus the leeway.
    case expiry
}

/// Every connection's auth timeout or token expiry, served by one dispatch timer.
///
/// One timer per connection cost each connect and close a wake-up of libdispatch's timer
/// thread (arming and cancelling a source both post to it): with a token, the daemon spent
/// about as much CPU per connection on that as on the rest of connecting (BENCHMARKS.md,
/// "Authentication and TLS"). Here a connection's deadline is an entry in a heap under a
/// lock; the one timer is moved only when the earliest deadline changes, which tokens of
/// one lifetime and auth timeouts, arriving in order, seldom do.
///
/// `@unchecked Sendable`: the timer source is set up in `init` and `activate` and then
/// only rescheduled under `pending`'s lock (dispatch sources are thread-safe); `pending`
/// is a lock.
final class IdentityDeadlines: @unchecked Sendable {
    private let timer: any DispatchSourceTimer
    private let pending = Locked(DeadlineQueue<ConnectionID, IdentityDeadline>())
    /// The deadline the timer is set for (`DispatchTime.distantFuture`'s when none).
    private var armedFor = UInt64.max

    init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "reactorhub.identity-deadlines"))
        timer.schedule(deadline: .distantFuture)
    }

    deinit {
        timer.cancel()
    }

    /// Starts the timer: `passed` gets the connections whose deadline has come, earliest
    /// first, on the timer's queue.
    func activate(_ passed: @escaping @Sendable ([(key: ConnectionID, value: IdentityDeadline)]) -> Void) {
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let due = self.pending.withLock { pending in
                let due = pending.removeDue(at: DispatchTime.now().uptimeNanoseconds)
                self.rearm(pending.earliest(), force: true)
                return due
            }
            if !due.isEmpty { passed(due) }
        }
        timer.activate()
    }

    /// Gives `id` the deadline `event` after `delay`, replacing the one it had.
    func set(_ id: ConnectionID, _ event: IdentityDeadline, after delay: Duration) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = max(0, seconds) * 1_000_000_000 + max(0, attoseconds / 1_000_000_000)
        let deadline = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(UInt64(nanoseconds))
        pending.withLock { pending in
            pending.set(id, deadline: deadline.overflow ? UInt64.max - 1 : deadline.partialValue, value: event)
            rearm(pending.earliest(), force: false)
        }
    }

    /// Forgets `id`'s deadline (it closed).
    func cancel(_ id: ConnectionID) {
        pending.withLock { _ = $0.remove(id) }
    }

    /// Connections with a deadline.
    var count: Int { pending.withLock { $0.count } }

    /// Heap entries held (tests: closed connections' entries do not pile up).
    var storedEntries: Int { pending.withLock { $0.storedEntries } }

    /// Under `pending`'s lock: points the timer at `earliest` when it is sooner than what
    /// it is set for (or always, after it fired).
    private func rearm(_ earliest: UInt64?, force: Bool) {
        let target = earliest ?? UInt64.max
        guard force ? target != armedFor || earliest != nil : target < armedFor else { return }
        armedFor = target
        timer.schedule(deadline: earliest.map { DispatchTime(uptimeNanoseconds: $0) } ?? .distantFuture)
    }
}
