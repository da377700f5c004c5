/// When a link's thread connects, and whether its connection still belongs to the master
/// the directory names: backoff after failed attempts, an attempt at once after a drop or
/// a new naming.
struct LinkSchedule: Sendable {
    private var backoff: ReconnectBackoff
    /// The earliest time of the next attempt.
    private(set) var nextAttempt = ContinuousClock.now
    /// The directory's serial at the last attempt, and when the connection was made.
    private var attemptedSerial = -1
    private var connectedSerial = -1

    init(_ configuration: RedisConfiguration) {
        backoff = ReconnectBackoff(initial: configuration.reconnectDelay, maximum: configuration.maximumReconnectDelay)
    }

    /// Whether an attempt is due now.
    var isDue: Bool {
        ContinuousClock.now >= nextAttempt
    }

    /// Takes the directory's serial now; returns why the connection (if any) must go: it
    /// was made under another naming of the master, or `rebuild` (the delivery probe) asks
    /// for a new one. A naming not tried yet makes the next attempt immediate.
    mutating func follow(_ serial: Int, rebuild: Bool) -> RedisError? {
        if serial != attemptedSerial {
            nextAttempt = .now
            backoff.reset()
        }
        if rebuild { return RedisError(.connection, "the link is rebuilt (delivery probe)") }
        return serial != connectedSerial ? RedisError(.connection, "the Redis master changed") : nil
    }

    /// An attempt under `serial` begins.
    mutating func attempting(_ serial: Int) {
        attemptedSerial = serial
    }

    /// The attempt failed: the next one waits for the backoff.
    mutating func failed() {
        nextAttempt = .now + backoff.next()
    }

    /// The attempt made a connection.
    mutating func connected() {
        connectedSerial = attemptedSerial
        backoff.reset()
    }

    /// The connection was dropped: the next attempt is immediate.
    mutating func dropped() {
        nextAttempt = .now
    }
}
