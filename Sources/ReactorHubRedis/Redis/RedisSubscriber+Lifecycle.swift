import Foundation

extension RedisSubscriber {
    /// Starts the subscriber's thread, which connects at once. Call once.
    public func start() {
        state.withLock { $0.started = true }
        let worker = SubscriberWorker(subscriber: self)
        let thread = Thread {
            worker.loop()
        }
        thread.name = "reactorhub-\(configuration.name)"
        // 8 MiB, as every other thread of the process has: walks over a JSON value recurse once
        // per nesting level, and at the parser's limit a debug build's parse takes about 2.6 MiB
        // (JSONTests' DeepDocumentTests).
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Closes the connection and stops the thread; returns once it has finished. No event
    /// is delivered after this returns.
    public func shutdown() async {
        requestStop()
        await waitUntilStopped()
    }

    /// Runs the subscriber as a service: starts it, and shuts it down when the task is
    /// cancelled.
    public func run() async {
        start()
        await withTaskCancellationHandler {
            await waitUntilStopped()
        } onCancel: {
            requestStop()
        }
    }

    func requestStop() {
        let started = state.withLock { state in
            state.stopping = true
            return state.started
        }
        if started {
            wakePipe.wake()
        } else {
            finish()
        }
    }

    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state in
                if state.finished { return true }
                state.exitWaiters.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
    }

    /// Marks the subscriber finished and wakes everyone still waiting on it.
    func finish() {
        let closed = RedisError(.closed, "the subscriber was shut down")
        let (waiters, exitWaiters) = state.withLock { state in
            state.finished = true
            state.connected = false
            let waiters = state.waiters
            let exitWaiters = state.exitWaiters
            state.waiters = []
            state.exitWaiters = []
            return (waiters, exitWaiters)
        }
        for waiter in waiters {
            waiter.continuation.resume(returning: .failure(closed))
        }
        link.finish(.down(closed))
        for waiter in exitWaiters {
            waiter.resume()
        }
    }
}
