/// Where a client's connection stands; `HubClient.statusUpdates` reports every change.
public enum HubClientStatus: Sendable, Hashable, CustomStringConvertible {
    /// The first connection is being made.
    case connecting
    /// Connected: the server said `hello` and gave this connection `session`.
    case open(session: String)
    /// The connection dropped; the next attempt (1 for the first) starts after `delay`.
    case reconnecting(attempt: Int, delay: Duration, reason: String)
    /// Closed for good (`close()`, or the first connection failed).
    case closed

    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .open(let session): "open (session \(session))"
        case .reconnecting(let attempt, let delay, let reason): "reconnecting (attempt \(attempt) in \(delay); \(reason))"
        case .closed: "closed"
        }
    }
}
