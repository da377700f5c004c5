/// A refusal by the server (`code` is the protocol's error code, e.g. `unknown_action`) or
/// a failure seen by the client (`disconnected`, `closed`, `cannot_connect`, …), with one
/// readable sentence.
public struct HubClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is; new codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code as the protocol (or this client) spells it.
        public let rawValue: String
        /// Creates a code from its name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        // Refusals by the server (PROTOCOL.md, "Error codes").
        /// The message was not JSON.
        public static let badJSON = Code(rawValue: "bad_json")
        /// A member was missing or mistyped, or the message type unknown (`auth` on a
        /// server without authentication).
        public static let badRequest = Code(rawValue: "bad_request")
        /// No such reactor kind.
        public static let unknownReactor = Code(rawValue: "unknown_reactor")
        /// The address is not `KIND/ID` (also checked by the client before sending).
        public static let invalidReactor = Code(rawValue: "invalid_reactor")
        /// The kind has no such action.
        public static let unknownAction = Code(rawValue: "unknown_action")
        /// The action's members are wrong, or the reactor refused it.
        public static let invalidAction = Code(rawValue: "invalid_action")
        /// The reactor is not joined on this connection.
        public static let notJoined = Code(rawValue: "not_joined")
        /// The token's rights do not allow it (or the reactor was left for lack of them).
        public static let forbidden = Code(rawValue: "forbidden")
        /// No valid token (HTTP 401 at the upgrade, or an `auth` message refused).
        public static let unauthenticated = Code(rawValue: "unauthenticated")
        /// Too many actions per second.
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// Too many reactors joined on one connection.
        public static let tooManyJoins = Code(rawValue: "too_many_joins")
        /// The server cannot take it now (shutting down).
        public static let overloaded = Code(rawValue: "overloaded")
        /// The server failed.
        public static let `internal` = Code(rawValue: "internal")

        // Failures seen by the client.
        /// The URL is not a `ws://` or `wss://` URL.
        public static let invalidURL = Code(rawValue: "invalid_url")
        /// No connection could be made (or the upgrade was refused with an HTTP status other than 401).
        public static let cannotConnect = Code(rawValue: "cannot_connect")
        /// The connection dropped before the server answered, and the request is not resent.
        public static let disconnected = Code(rawValue: "disconnected")
        /// The client was closed.
        public static let closed = Code(rawValue: "closed")
        /// The reactor was left (by this client, or by the server for lack of rights).
        public static let left = Code(rawValue: "left")
        /// The server's state does not decode as the `State` type asked for.
        public static let decodingFailed = Code(rawValue: "decoding_failed")
        /// The action cannot be put in wire form.
        public static let encodingFailed = Code(rawValue: "encoding_failed")
        /// `maxQueuedActions` actions wait for the connection already: the action was not queued.
        public static let queueFull = Code(rawValue: "queue_full")
        /// The server did not answer in time.
        public static let timeout = Code(rawValue: "timeout")
        /// The task waiting for the answer was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
    }

    /// The kind of failure.
    public var code: Code
    /// One readable sentence: the server's message for a refusal.
    public var message: String
    /// The reactor concerned, when there is one.
    public var reactor: String?

    /// Creates an error.
    public init(_ code: Code, _ message: String, reactor: String? = nil) {
        self.code = code
        self.message = message
        self.reactor = reactor
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
