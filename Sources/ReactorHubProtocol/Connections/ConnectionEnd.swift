
/// Why the engine ends a connection, by meaning: each transport says it in its own terms
/// (the WebSocket adapter as the close code PROTOCOL.md "Close codes" names; an event
/// stream just ends).
public struct ConnectionEnd: Sendable, Equatable, CustomStringConvertible {
    /// What kind of end this is; new causes may be added.
    public struct Cause: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The server is shutting down (WebSocket 1001).
        public static let serverShutdown = Cause(rawValue: "server_shutdown")
        /// The peer is too slow to keep even its replies (1013).
        public static let tooSlow = Cause(rawValue: "too_slow")
        /// A policy ends it: no or expired authentication, a revoked user (1008).
        public static let policy = Cause(rawValue: "policy")
        /// The server failed (1011).
        public static let internalFailure = Cause(rawValue: "internal_failure")
    }

    /// Why.
    public var cause: Cause
    /// One short line the peer may see (a WebSocket close reason: at most 123 bytes).
    public var reason: String

    /// An end for `cause`, said as `reason`.
    public init(_ cause: Cause, _ reason: String) {
        self.cause = cause
        self.reason = reason
    }

    /// The server shuts down.
    public static let serverShutdown = ConnectionEnd(.serverShutdown, "server shutting down")
    /// The connection cannot keep up with its replies.
    public static let tooSlow = ConnectionEnd(.tooSlow, "too slow to keep up")

    /// A policy ends the connection, for `reason` (`authentication timeout`, `token expired`, `revoked`).
    public static func policy(_ reason: String) -> ConnectionEnd {
        ConnectionEnd(.policy, reason)
    }

    /// The WebSocket close code that says this end (PROTOCOL.md "Close codes").
    public var closeCode: CloseCode {
        switch cause {
        case .serverShutdown: .goingAway
        case .tooSlow: .tryAgainLater
        case .policy: .policyViolation
        default: .internalError
        }
    }

    public var description: String { "\(closeCode) \(reason)" }
}
