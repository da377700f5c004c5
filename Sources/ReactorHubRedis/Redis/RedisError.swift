/// A failure talking to Redis: the link, a timeout, or an error reply from the server.
///
/// A struct with a code and a message (in the manner of swift-service-lifecycle's
/// `ServiceGroupError`), so that adding a code breaks nobody.
public struct RedisError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's name, as logged.
        public let rawValue: String

        private init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The link is down: no connection, the connection broke, or the server closed it.
        /// A command that failed with this code may or may not have run on the server.
        public static let connection = Code("connection")
        /// The server did not answer within the command timeout; the link is reset.
        public static let timeout = Code("timeout")
        /// The server sent bytes that are not RESP2.
        public static let protocolViolation = Code("protocol")
        /// The server answered with an error reply (`-ERR …`, `-WRONGTYPE …`).
        public static let reply = Code("reply")
        /// The reply had a shape the caller did not expect (a bug or a foreign key).
        public static let unexpectedReply = Code("unexpected_reply")
        /// The client or subscriber was shut down.
        public static let closed = Code("closed")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A readable sentence; for `.reply`, the server's error text (`NOSCRIPT No matching script`).
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// For `.reply` errors, the first word of the server's message (`ERR`, `NOSCRIPT`,
    /// `WRONGTYPE`, `BUSY`), which Redis uses as the error's kind.
    public var replyPrefix: String? {
        guard code == .reply else { return nil }
        return message.split(separator: " ", maxSplits: 1).first.map(String.init)
    }

    /// Whether the link failed (as opposed to Redis refusing the command): a caller may
    /// retry once the link is back, knowing the command may have run.
    public var isLinkFailure: Bool {
        code == .connection || code == .timeout || code == .protocolViolation
    }

    /// `redis CODE: MESSAGE`, as logged.
    public var description: String { "redis \(code): \(message)" }
}
