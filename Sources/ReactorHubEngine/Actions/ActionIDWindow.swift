package import ReactorHubProtocol
import ReactorHubJSON

/// The outcomes of idempotent action ids one instance remembers (PROTOCOL.md "Actions that
/// are safe to resend"): for `window` after an id was answered, and at most `capacity`
/// ids, the oldest forgotten first. An id whose action is still being decided is
/// *pending*: a resend meanwhile waits for the first one's reply instead of running again.
///
/// A value type without clock or I/O: the caller passes `now`, and carries out what it
/// returns (send the duplicate reply, answer the waiters).
package struct ActionIDWindow<Waiter> {
    /// What `begin` found for an id.
    package enum Lookup {
        /// Unknown: the caller applies the action and later calls `answer`.
        case new
        /// Being decided: the waiter gets the reply when `answer` comes.
        case pending
        /// Answered before: send this reply again, marked as a duplicate.
        case answered([UInt8])
    }

    private enum Entry {
        case pending([Waiter])
        case answered(reply: [UInt8], at: ContinuousClock.Instant)
    }

    package let window: Duration
    package let capacity: Int
    private var entries: [String: Entry] = [:]
    /// Answered ids in the order they were answered (`entries` may have dropped some).
    private var order: [(id: String, at: ContinuousClock.Instant)] = []
    private var head = 0
    private(set) var answeredCount = 0

    package init(window: Duration, capacity: Int) {
        self.window = window
        self.capacity = max(1, capacity)
    }

    /// Looks `id` up; an unknown id becomes pending, a pending one records `waiter`.
    package mutating func begin(_ id: String, waiter: Waiter, now: ContinuousClock.Instant) -> Lookup {
        expire(now: now)
        switch entries[id] {
        case nil:
            entries[id] = .pending([])
            return .new
        case .pending(var waiters):
            waiters.append(waiter)
            entries[id] = .pending(waiters)
            return .pending
        case .answered(let reply, _):
            return .answered(reply)
        }
    }

    /// Remembers `reply` as the outcome of `id` from `now` on; returns the waiters of the
    /// resends that arrived while it was pending.
    package mutating func answer(_ id: String, reply: [UInt8], now: ContinuousClock.Instant) -> [Waiter] {
        var waiters: [Waiter] = []
        if case .pending(let waiting)? = entries[id] {
            waiters = waiting
        } else if case .answered? = entries[id] {
            return []
        }
        entries[id] = .answered(reply: reply, at: now)
        order.append((id, now))
        answeredCount += 1
        expire(now: now)
        return waiters
    }

    /// Remembers an outcome decided elsewhere (read back from the cluster's store on a
    /// takeover), answered at `at`.
    package mutating func restore(_ id: String, reply: [UInt8], at: ContinuousClock.Instant) {
        guard entries[id] == nil else { return }
        entries[id] = .answered(reply: reply, at: at)
        order.append((id, at))
        answeredCount += 1
    }

    /// Forgets a pending id whose action never got a reply (its instance went away);
    /// returns its waiters.
    package mutating func abandon(_ id: String) -> [Waiter] {
        guard case .pending(let waiters)? = entries[id] else { return [] }
        entries[id] = nil
        return waiters
    }

    /// Whether `id` is remembered as answered.
    package func isAnswered(_ id: String) -> Bool {
        if case .answered? = entries[id] { return true }
        return false
    }

    private mutating func expire(now: ContinuousClock.Instant) {
        while head < order.count, answeredCount > capacity || now - order[head].at >= window {
            let (id, at) = order[head]
            head += 1
            if case .answered(_, let answeredAt)? = entries[id], answeredAt == at {
                entries[id] = nil
                answeredCount -= 1
            }
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }
}

/// A resend of an action id waiting for (or getting) the first one's reply.
package struct IDWaiter: Sendable {
    package let output: ConnectionOutput
    package let ref: Ref?
}
