import Dispatch
import ReactorHubLocking
import ReactorHubProtocol

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
/// thread (arming and cancelling a source both post to it): with a token, that thread had
/// 14.6 % of the daemon's samples while connecting (BENCHMARKS.md, "Authentication and
/// TLS"). Here a connection's deadline is an entry in a heap under a lock; the one timer is
/// moved only when the earliest deadline comes sooner than the one it is set for, which
/// tokens of one lifetime and auth timeouts, arriving in order, seldom do.
///
/// `@unchecked Sendable`: the timer source is set up in `init` and `activate` and then
/// only rescheduled under `pending`'s lock (dispatch sources are thread-safe); `pending`
/// is a lock.
final class IdentityDeadlines: @unchecked Sendable {
    private let timer: any DispatchSourceTimer
    private let pending = Locked(DeadlineQueue<ConnectionID, IdentityDeadline>())
    /// The deadline the timer is set for (`UInt64.max`: none).
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
                // The timer is one-shot: it is set for nothing until rearmed.
                self.armedFor = UInt64.max
                self.rearm(pending.earliest())
                return due
            }
            if !due.isEmpty { passed(due) }
        }
        timer.activate()
    }

    /// Gives `id` the deadline `event` in `seconds`, replacing the one it had. At most
    /// `longest` ahead: a token may say it expires in a thousand years, and whoever handles
    /// an early deadline sets it again.
    func set(_ id: ConnectionID, _ event: IdentityDeadline, inSeconds seconds: Double) {
        let ahead = seconds > 0 ? min(seconds, Self.longest) : 0
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(ahead * 1e9)
        pending.withLock { pending in
            pending.set(id, deadline: deadline, value: event)
            rearm(pending.earliest())
        }
    }

    /// The furthest a deadline is set ahead, in seconds (about 31 years).
    static let longest: Double = 1e9

    /// Forgets `id`'s deadline (it closed).
    func cancel(_ id: ConnectionID) {
        pending.withLock { _ = $0.remove(id) }
    }

    /// Connections with a deadline.
    var count: Int { pending.withLock { $0.count } }

    /// Heap entries held (tests: closed connections' entries do not pile up).
    var storedEntries: Int { pending.withLock { $0.storedEntries } }

    /// Under `pending`'s lock: points the timer at `earliest` when that is sooner than what
    /// it is set for.
    private func rearm(_ earliest: UInt64?) {
        guard let earliest, earliest < armedFor else { return }
        armedFor = earliest
        timer.schedule(deadline: DispatchTime(uptimeNanoseconds: earliest))
    }
}
