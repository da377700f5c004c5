import Dispatch
import Foundation

extension RedisClient {
    /// Starts the worker thread, which connects at once. Call once.
    public func start() {
        queue.withLock { $0.started = true }
        let worker = RedisWorker(client: self)
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

    /// Stops the worker: commands still queued fail with `.closed`, the connection is
    /// closed. Returns once the thread has finished.
    public func shutdown() async {
        requestStop()
        await waitUntilStopped()
    }

    /// Runs the client as a service: starts it, and shuts it down when the task is cancelled.
    public func run() async {
        start()
        await withTaskCancellationHandler {
            await waitUntilStopped()
        } onCancel: {
            requestStop()
        }
    }

    /// Drops the connection and makes a new one (the delivery probe found pub/sub silent):
    /// commands queued meanwhile run on the new one.
    public func reconnect() {
        reconnectRequested.store(true, ordering: .relaxed)
        wakeup.signal()
    }

    func requestStop() {
        let started = queue.withLock { queue in
            queue.stopping = true
            return queue.started
        }
        if started {
            wakeup.signal()
        } else {
            finish()
        }
    }

    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = queue.withLock { queue in
                if queue.finished { return true }
                queue.exitWaiters.append(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
    }

    /// Marks the client finished, fails what is left, and wakes those waiting for the end.
    func finish() {
        let (jobs, waiters) = queue.withLock { queue in
            queue.finished = true
            let jobs = queue.jobs
            let waiters = queue.exitWaiters
            queue.jobs = []
            queue.exitWaiters = []
            return (jobs, waiters)
        }
        for job in jobs {
            job.fail(RedisError(.closed, "the Redis client was shut down"))
        }
        link.finish(.down(RedisError(.closed, "the Redis client was shut down")))
        for waiter in waiters {
            waiter.resume()
        }
    }
}

/// One queued unit of work for the worker: `run` on the connection, or `fail` without one.
struct Job: Sendable {
    let run: @Sendable (RedisConnection, ScriptCache) -> Void
    let fail: @Sendable (RedisError) -> Void
}

/// What callers and the worker thread share, under the client's lock.
struct JobQueue: Sendable {
    var jobs: [Job] = []
    var started = false
    var stopping = false
    var finished = false
    var exitWaiters: [CheckedContinuation<Void, Never>] = []

    /// Queues `job`; false once the client is stopping.
    mutating func add(_ job: Job) -> Bool {
        guard !stopping else { return false }
        jobs.append(job)
        return true
    }
}
