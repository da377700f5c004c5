/// Why a client connection never opened, with a stable code and a readable sentence.
public struct WebSocketClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is; new codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The host name did not resolve.
        public static let unknownHost = Code(rawValue: "unknown_host")
        /// No TCP (or TLS) connection could be made: refused, unreachable, timed out.
        public static let cannotConnect = Code(rawValue: "cannot_connect")
        /// The server answered the upgrade with an HTTP status other than 101 (`httpStatus`).
        public static let upgradeRefused = Code(rawValue: "upgrade_refused")
        /// The connection was closed by this side before it opened.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The client was shut down.
        public static let shutDown = Code(rawValue: "shut_down")
        /// libwebsockets could not set the client up (no context).
        public static let unavailable = Code(rawValue: "unavailable")
    }

    /// The kind of failure.
    public var code: Code
    /// One readable sentence that says what went wrong.
    public var message: String
    /// The HTTP status of a refused upgrade (401, 403, 503…).
    public var httpStatus: Int?

    /// Creates an error.
    public init(_ code: Code, _ message: String, httpStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
    }

    public var description: String { message }
}
