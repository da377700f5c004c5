/// A one-way flag that tasks can wait for, with or without a deadline: the way a service
/// waits for an event (its thread ended, its last connection closed) without polling.
package final class Latch: Sendable {
    private struct Contents {
        var isOpen = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        /// The timers of waiters with a deadline, cancelled when the latch opens first.
        var timers: [Int: Task<Void, Never>] = [:]
    }

    private let contents = Locked(Contents())

    /// Creates a closed latch.
    package init() {}

    /// Whether `open()` was called.
    package var isOpen: Bool {
        contents.withLock { $0.isOpen }
    }

    /// Opens the latch: every waiter, present and future, goes on. Idempotent.
    package func open() {
        let (waiters, timers) = contents.withLock { contents -> ([CheckedContinuation<Bool, Never>], [Task<Void, Never>]) in
            contents.isOpen = true
            defer {
                contents.waiters = [:]
                contents.timers = [:]
            }
            return (Array(contents.waiters.values), Array(contents.timers.values))
        }
        for timer in timers {
            timer.cancel()
        }
        for waiter in waiters {
            waiter.resume(returning: true)
        }
    }

    /// Returns once the latch is open.
    package func wait() async {
        _ = await wait(deadline: nil)
    }

    /// Returns true once the latch is open, or false when `timeout` passed first.
    package func wait(timeout: Duration) async -> Bool {
        await wait(deadline: timeout)
    }

    private func wait(deadline timeout: Duration?) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let ticket = contents.withLock { contents -> Int? in
                if contents.isOpen { return nil }
                contents.nextWaiter += 1
                contents.waiters[contents.nextWaiter] = continuation
                return contents.nextWaiter
            }
            guard let ticket else {
                continuation.resume(returning: true)
                return
            }
            guard let timeout else { return }
            let timer = Task { [self] in
                try? await Task.sleep(for: timeout)
                let expired = contents.withLock { contents -> CheckedContinuation<Bool, Never>? in
                    contents.timers[ticket] = nil
                    return contents.waiters.removeValue(forKey: ticket)
                }
                expired?.resume(returning: false)
            }
            contents.withLock { contents in
                // Keep the timer only while its waiter waits (it may have expired or the
                // latch opened meanwhile).
                if contents.waiters[ticket] != nil { contents.timers[ticket] = timer } else { timer.cancel() }
            }
        }
    }
}
