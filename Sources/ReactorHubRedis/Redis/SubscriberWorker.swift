#if canImport(Glibc)
import Glibc
#endif
import ReactorHubLogging

/// The loop of a `RedisSubscriber`'s thread: poll the socket and the wake pipe, send
/// subscription changes, deliver messages, PING an idle link, reconnect and resubscribe,
/// and move to the new master as soon as the directory changes.
///
/// `@unchecked Sendable`: created by `start()` and then used by the subscriber's thread
/// alone (the interrupter is itself thread-safe).
final class SubscriberWorker: @unchecked Sendable {
    let subscriber: RedisSubscriber
    private var connection: RedisConnection?
    private let interrupter: LinkInterrupter
    private var schedule: LinkSchedule
    private var lastRead = ContinuousClock.now
    private var pingSent: ContinuousClock.Instant?
    /// Names the reconnection's SUBSCRIBE must confirm before `.resubscribed` is delivered.
    var unconfirmed: [SubscriptionKind: Set<String>] = [:]
    var gapToReport = false

    init(subscriber: RedisSubscriber) {
        self.subscriber = subscriber
        self.schedule = LinkSchedule(subscriber.configuration)
        self.interrupter = LinkInterrupter { [wakePipe = subscriber.wakePipe] in wakePipe.wake() }
    }

    func loop() {
        let ticket = subscriber.directory.register(interrupter)
        defer { subscriber.directory.unregister(ticket) }
        while !subscriber.state.withLock({ $0.stopping }) {
            followDirectory()
            if let connection {
                serve(connection)
            } else if schedule.isDue {
                connect()
            } else {
                wait(for: nil, until: schedule.nextAttempt)
            }
        }
        close()
        subscriber.finish()
    }

    /// Drops a connection made under an older naming of the master (or one the delivery
    /// probe asked to rebuild), and tries a new one at once when the naming changed.
    private func followDirectory() {
        let rebuild = subscriber.reconnectRequested.exchange(false, ordering: .relaxed)
        if let reason = schedule.follow(subscriber.directory.serial, rebuild: rebuild), connection != nil {
            drop(reason)
        }
    }

    private func close() {
        interrupter.detach()
        connection?.close()
        connection = nil
    }

    /// One round: wait for bytes, a wake-up or a PING deadline, and act on what came.
    private func serve(_ connection: RedisConnection) {
        let configuration = subscriber.configuration
        let deadline = pingSent.map { $0 + configuration.commandTimeout } ?? lastRead + configuration.healthCheckInterval
        let (readable, woken) = wait(for: connection.fileDescriptor, until: deadline)
        do throws(RedisError) {
            if woken {
                try sendQueuedCommands(connection)
            }
            if readable {
                try connection.readAvailable()
                lastRead = ContinuousClock.now
                pingSent = nil
                while let reply = try connection.bufferedReply() {
                    handle(reply)
                }
            } else if ContinuousClock.now >= deadline {
                if pingSent != nil {
                    throw RedisError(.timeout, "no answer to PING within the command timeout")
                }
                try connection.append(["PING"])
                try connection.flush()
                pingSent = ContinuousClock.now
            }
        } catch {
            drop(error)
        }
    }

    private func sendQueuedCommands(_ connection: RedisConnection) throws(RedisError) {
        let commands = subscriber.state.withLock { state in
            let commands = state.outbox
            state.outbox = []
            return commands
        }
        guard !commands.isEmpty else { return }
        for command in commands {
            try connection.append(command.arguments)
        }
        try connection.flush()
    }

    /// Polls the socket (when given) and the wake pipe until `deadline`.
    @discardableResult
    private func wait(for socket: Int32?, until deadline: ContinuousClock.Instant) -> (readable: Bool, woken: Bool) {
        let remaining = max(.zero, deadline - ContinuousClock.now)
        var fds = [pollfd(fd: subscriber.wakePipe.readEnd, events: Int16(POLLIN), revents: 0)]
        if let socket {
            fds.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0))
        }
        let milliseconds = Int32(min(remaining.wholeMilliseconds + 1, 60_000))
        guard poll(&fds, nfds_t(fds.count), milliseconds) > 0 else { return (false, false) }
        let woken = fds[0].revents != 0
        if woken { subscriber.wakePipe.drain() }
        let readable = fds.count > 1 && fds[1].revents != 0
        return (readable, woken)
    }

    private func connect() {
        let directory = subscriber.directory
        guard let target = directory.target else {
            schedule.attempting(directory.serial)
            schedule.failed()
            return
        }
        schedule.attempting(target.serial)
        do {
            let connection = try RedisConnection.link(
                to: target.endpoint, configuration: subscriber.configuration, expectsMaster: directory.expectsMaster,
                interrupter: interrupter
            )
            let wanted = subscriber.state.withLock { state in
                state.connected = true
                state.outbox = []  // covered by `wanted`, sent below
                return state.wanted.filter { !$0.value.isEmpty }
            }
            for (kind, names) in wanted.sorted(by: { $0.key == .channel && $1.key == .pattern }) {
                try connection.append(SubscriptionCommand(kind: kind, names: names.sorted(), subscribe: true).arguments)
            }
            try connection.flush()
            self.connection = connection
            schedule.connected()
            unconfirmed = wanted
            gapToReport = !wanted.isEmpty
            lastRead = ContinuousClock.now
            pingSent = nil
            if subscriber.link.change(to: .up) {
                subscriber.logger.info("redis subscriber link up", metadata: [
                    "address": "\(target.endpoint)", "subscriptions": String(wanted.values.map(\.count).reduce(0, +)),
                ])
            }
        } catch {
            // The connection (if made) is freed with this scope; its socket is not ours any more.
            interrupter.detach()
            subscriber.state.withLock { $0.connected = false }
            schedule.failed()
            subscriber.logger.debug("redis subscriber connection attempt failed", metadata: ["error": error.message])
        }
    }

    /// Forgets a failed connection, fails pending confirmations and tells the handler.
    private func drop(_ error: RedisError) {
        close()
        schedule.dropped()
        let waiters = subscriber.state.withLock { state in
            state.connected = false
            state.outbox = []
            let waiters = state.waiters
            state.waiters = []
            return waiters
        }
        for waiter in waiters {
            waiter.continuation.resume(returning: .failure(error))
        }
        if subscriber.link.change(to: .down(error)) {
            subscriber.logger.warning("redis subscriber link down; resubscribing", metadata: ["error": error.message])
        }
        subscriber.handler(.linkDown(error))
    }
}
