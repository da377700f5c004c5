import ReactorHubLocking
import Dispatch

/// The lock-protected queue in front of a runtime's serial context, and the bookkeeping that
/// says when the runtime is idle or settled.
///
/// Anyone appends; one drain at a time takes items out. `append` tells the caller when it must
/// start a drain, so a burst of sends costs one lock each and one dispatch for the whole burst.
/// The inbox holds no reference to its runtime, so effect tasks and clocks may keep it.
///
/// `@unchecked Sendable`: every field is only touched while holding `lock`. A plain lock and
/// fields, rather than a lock around a generic struct, keep `append` free of generic metadata
/// lookups.
final class Inbox<Item: Sendable>: EffectParking, @unchecked Sendable {
    /// What the caller of `append` must do.
    enum AppendResult {
        /// A drain is running or scheduled and will take the item.
        case queued
        /// The serial context was idle: the caller must start a drain.
        case startDrain
        /// The runtime is gone; the item was not queued.
        case closed
    }

    private let lock = Lock()
    private var items: [Item] = []
    /// Items before `head` were taken already (a drain takes at most its budget at once).
    private var head = 0
    private var isDraining = false
    private var isClosed = false
    /// Timers and effect tasks not finished yet.
    private var pendingOperations = 0
    /// Effect tasks running rather than parked (see `EffectParking`).
    private var running = 0
    private var idleWaiters: [UnsafeContinuation<Void, Never>] = []
    private var settleWaiters: [Int: UnsafeContinuation<Bool, Never>] = [:]
    private var nextWaiterID = 0

    private var isIdleLocked: Bool {
        !isDraining && head == items.count && pendingOperations == 0
    }

    private var isSettledLocked: Bool {
        !isDraining && head == items.count && running <= 0
    }

    /// The settle waiters to resume, if the runtime has just settled; call holding the lock.
    private func takeSettleWaitersIfSettled() -> [UnsafeContinuation<Bool, Never>] {
        guard isSettledLocked, !settleWaiters.isEmpty else { return [] }
        defer { settleWaiters.removeAll() }
        return Array(settleWaiters.values)
    }

    /// Queues `item`; with `parking`, the effect task that sends it parks in the same step.
    @inline(__always)
    func append(_ item: Item, parking: Bool = false) -> AppendResult {
        var result = AppendResult.queued
        lock.withLock {
            guard !isClosed else {
                result = .closed
                return
            }
            items.append(item)
            if parking {
                running -= 1
            }
            if !isDraining {
                isDraining = true
                result = .startDrain
            }
        }
        return result
    }

    /// Moves the oldest queued items, at most `limit`, into `batch` (which must be empty);
    /// returns false if none was queued. O(1) amortised per item, however long the queue.
    @inline(__always)
    func take(into batch: inout [Item], atMost limit: Int) -> Bool {
        var taken = false
        lock.withLock {
            let available = items.count - head
            guard available > 0 else { return }
            taken = true
            if head == 0 && available <= limit {
                swap(&items, &batch)
                return
            }
            let end = head + min(limit, available)
            batch.append(contentsOf: items[head..<end])
            head = end
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 && head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
        }
        return taken
    }

    /// Whether items wait to be taken.
    var hasQueuedItems: Bool {
        lock.withLock { head < items.count }
    }

    /// Puts items a drain took but did not process (its turn ended) back in front, in order.
    func putBack(_ rest: ArraySlice<Item>) {
        guard !rest.isEmpty else { return }
        lock.withLock {
            items.insert(contentsOf: rest, at: head)
        }
    }

    /// Ends the current drain if nothing arrived meanwhile; returns false if the drain must go on.
    func finishDrain() -> Bool {
        var finished = false
        var idle: [UnsafeContinuation<Void, Never>] = []
        var settled: [UnsafeContinuation<Bool, Never>] = []
        lock.withLock {
            guard head == items.count else { return }
            finished = true
            isDraining = false
            if pendingOperations == 0 {
                swap(&idle, &idleWaiters)
            }
            settled = takeSettleWaitersIfSettled()
        }
        idle.forEach { $0.resume() }
        settled.forEach { $0.resume(returning: true) }
        return finished
    }

    /// Counts a timer or an effect task that has started; an effect task also counts as running.
    func operationStarted(running isRunning: Bool) {
        lock.withLock {
            pendingOperations += 1
            if isRunning {
                running += 1
            }
        }
    }

    /// Counts a timer or an effect task that has ended; called in the serial context.
    func operationFinished() {
        lock.withLock { pendingOperations -= 1 }
    }

    var hasPendingOperations: Bool {
        lock.withLock { pendingOperations > 0 }
    }

    func park() {
        var settled: [UnsafeContinuation<Bool, Never>] = []
        lock.withLock {
            running -= 1
            settled = takeSettleWaitersIfSettled()
        }
        settled.forEach { $0.resume(returning: true) }
    }

    func unpark() {
        lock.withLock { running += 1 }
    }

    var isSettled: Bool {
        lock.withLock { isSettledLocked }
    }

    func settle(timeout: Duration) async -> Bool {
        let id = lock.withLock {
            defer { nextWaiterID += 1 }
            return nextWaiterID
        }
        return await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            let settledNow = lock.withLock {
                guard !isSettledLocked, !isClosed else { return true }
                settleWaiters[id] = continuation
                return false
            }
            if settledNow {
                continuation.resume(returning: true)
                return
            }
            let deadline = DispatchTime.now() + .nanoseconds(LiveClock.nanoseconds(timeout))
            DispatchQueue.global().asyncAfter(deadline: deadline) {
                let waiter = self.lock.withLock { self.settleWaiters.removeValue(forKey: id) }
                waiter?.resume(returning: false)
            }
        }
    }

    /// Waits until nothing is queued, nothing is being processed and no effect is in flight.
    func waitUntilIdle() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let idleNow = lock.withLock {
                guard !isIdleLocked, !isClosed else { return true }
                idleWaiters.append(continuation)
                return false
            }
            if idleNow {
                continuation.resume()
            }
        }
    }

    /// Refuses further items and returns those still queued; wakes every waiter.
    func close() -> [Item] {
        var queued: [Item] = []
        var idle: [UnsafeContinuation<Void, Never>] = []
        var settle: [UnsafeContinuation<Bool, Never>] = []
        lock.withLock {
            isClosed = true
            queued = Array(items[head...])
            items = []
            head = 0
            swap(&idle, &idleWaiters)
            settle = Array(settleWaiters.values)
            settleWaiters.removeAll()
        }
        idle.forEach { $0.resume() }
        settle.forEach { $0.resume(returning: true) }
        return queued
    }
}
