import Dispatch
import ReactorHubLogging

/// The loop of a `RedisClient`'s worker thread: connect to the master the directory names,
/// run queued jobs, check an idle link, reconnect with backoff after a failure, and move
/// to the new master as soon as the directory changes.
///
/// `@unchecked Sendable`: created by `start()` and then used by the worker thread alone
/// (the connection, the script digests and the backoff are never touched elsewhere; the
/// interrupter is itself thread-safe).
final class RedisWorker: @unchecked Sendable {
    private let client: RedisClient
    private var connection: RedisConnection?
    private let scripts = ScriptCache()
    private var schedule: LinkSchedule
    private var lastUse = ContinuousClock.now
    private var lastFailure = RedisError(.connection, "not connected yet")
    private let interrupter: LinkInterrupter

    init(client: RedisClient) {
        self.client = client
        self.schedule = LinkSchedule(client.configuration)
        self.interrupter = LinkInterrupter { [wakeup = client.wakeup] in wakeup.signal() }
    }

    func loop() {
        let ticket = client.directory.register(interrupter)
        defer { client.directory.unregister(ticket) }
        let configuration = client.configuration
        while true {
            followDirectory()
            if connection == nil, schedule.isDue {
                connect()
            }
            let wait = connection == nil
                ? max(.zero, schedule.nextAttempt - ContinuousClock.now)
                : configuration.healthCheckInterval
            _ = client.wakeup.wait(timeout: .now() + .milliseconds(max(1, wait.wholeMilliseconds)))
            let (jobs, stopping) = client.queue.withLock { queue in
                let jobs = queue.jobs
                queue.jobs = []
                return (jobs, queue.stopping)
            }
            followDirectory()
            if !jobs.isEmpty, connection == nil, schedule.isDue {
                connect()
            }
            for job in jobs {
                run(job)
            }
            if stopping {
                close()
                client.finish()
                return
            }
            if jobs.isEmpty, let connection, ContinuousClock.now - lastUse >= configuration.healthCheckInterval {
                lastUse = ContinuousClock.now
                do throws(RedisError) {
                    if let target = client.directory.target, client.directory.expectsMaster {
                        try connection.requireMaster(target.endpoint)
                    } else {
                        _ = try connection.send(["PING"])
                    }
                } catch {
                    drop(error)
                }
            }
        }
    }

    /// Drops a connection made under an older naming of the master (or one the delivery
    /// probe asked to rebuild), and tries a new one at once when the naming changed.
    private func followDirectory() {
        let rebuild = client.reconnectRequested.exchange(false, ordering: .relaxed)
        if let reason = schedule.follow(client.directory.serial, rebuild: rebuild), connection != nil {
            drop(reason)
        }
    }

    private func run(_ job: Job) {
        guard let connection else {
            job.fail(RedisError(.connection, "cluster link down: \(lastFailure.message)"))
            return
        }
        lastUse = ContinuousClock.now
        job.run(connection, scripts)
        if let failure = connection.failure {
            drop(failure)
        }
    }

    private func connect() {
        let configuration = client.configuration
        let directory = client.directory
        guard let target = directory.target else {
            schedule.attempting(directory.serial)
            lastFailure = RedisError(.connection, "no Redis master: \(directory.missingReason ?? "none named yet")")
            schedule.failed()
            return
        }
        schedule.attempting(target.serial)
        do {
            let connection = try RedisConnection.link(
                to: target.endpoint, configuration: configuration, expectsMaster: directory.expectsMaster, interrupter: interrupter
            )
            self.connection = connection
            schedule.connected()
            lastUse = ContinuousClock.now
            if client.link.change(to: .up) {
                client.logger.info("redis link up", metadata: ["address": "\(target.endpoint)"])
            }
        } catch {
            lastFailure = error
            schedule.failed()
            client.logger.debug("redis connection attempt failed", metadata: ["error": error.message])
        }
    }

    private func close() {
        interrupter.detach()
        connection?.close()
        connection = nil
    }

    /// Forgets a connection that failed; the next attempt is immediate.
    private func drop(_ error: RedisError) {
        close()
        lastFailure = error
        schedule.dropped()
        if client.link.change(to: .down(error)) {
            client.logger.warning("redis link down; reconnecting", metadata: ["error": error.message])
        }
    }
}
