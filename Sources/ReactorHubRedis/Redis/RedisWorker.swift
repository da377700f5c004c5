import Dispatch
import ReactorHubLogging

/// The loop of a `RedisClient`'s worker thread: connect, run queued jobs, check an idle
/// link, reconnect with backoff after a failure.
///
/// `@unchecked Sendable`: created by `start()` and then used by the worker thread alone
/// (the connection, the script digests and the backoff are never touched elsewhere).
final class RedisWorker: @unchecked Sendable {
    private let client: RedisClient
    private var connection: RedisConnection?
    private let scripts = ScriptCache()
    private var backoff: ReconnectBackoff
    private var nextAttempt = ContinuousClock.now
    private var lastUse = ContinuousClock.now
    private var lastFailure = RedisError(.connection, "not connected yet")

    init(client: RedisClient) {
        self.client = client
        self.backoff = ReconnectBackoff(
            initial: client.configuration.reconnectDelay,
            maximum: client.configuration.maximumReconnectDelay
        )
    }

    func loop() {
        let configuration = client.configuration
        while true {
            if connection == nil, ContinuousClock.now >= nextAttempt {
                connect()
            }
            let wait = connection == nil
                ? max(.zero, nextAttempt - ContinuousClock.now)
                : configuration.healthCheckInterval
            _ = client.wakeup.wait(timeout: .now() + .milliseconds(max(1, wait.wholeMilliseconds)))
            let (jobs, stopping) = client.queue.withLock { queue in
                let jobs = queue.jobs
                queue.jobs = []
                return (jobs, queue.stopping)
            }
            if !jobs.isEmpty, connection == nil, ContinuousClock.now >= nextAttempt {
                connect()
            }
            for job in jobs {
                run(job)
            }
            if stopping {
                connection?.close()
                connection = nil
                client.finish()
                return
            }
            if jobs.isEmpty, let connection, ContinuousClock.now - lastUse >= configuration.healthCheckInterval {
                lastUse = ContinuousClock.now
                do {
                    _ = try connection.send(["PING"])
                } catch {
                    drop(error)
                }
            }
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
        do {
            let connection = try RedisConnection(
                host: configuration.host,
                port: configuration.port,
                connectTimeout: configuration.connectTimeout,
                commandTimeout: configuration.commandTimeout
            )
            // A stopped server's kernel still accepts connections: up only once it answers.
            _ = try connection.send(["PING"])
            self.connection = connection
            backoff.reset()
            lastUse = ContinuousClock.now
            if client.link.change(to: .up) {
                client.logger.info("redis link up")
            }
        } catch {
            lastFailure = error
            nextAttempt = ContinuousClock.now + backoff.next()
            client.logger.debug("redis connection attempt failed", metadata: ["error": error.message])
        }
    }

    /// Forgets a connection that failed; the next attempt is immediate.
    private func drop(_ error: RedisError) {
        connection?.close()
        connection = nil
        lastFailure = error
        nextAttempt = ContinuousClock.now
        if client.link.change(to: .down(error)) {
            client.logger.warning("redis link down; reconnecting", metadata: ["error": error.message])
        }
    }
}
