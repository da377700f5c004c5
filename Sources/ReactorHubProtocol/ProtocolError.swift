package import ReactorHubJSON

/// A refusal answered to the client as an `error` message (PROTOCOL.md "Error codes"):
/// a stable code and one sentence that says what was wrong and what is accepted.
public struct ProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An error code of the protocol; new codes may be added without breaking anyone.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The message is not valid JSON.
        public static let badJSON = Code(rawValue: "bad_json")
        /// A member is missing or mistyped, or the message type is unknown.
        public static let badRequest = Code(rawValue: "bad_request")
        /// The address names a kind that is not registered.
        public static let unknownReactor = Code(rawValue: "unknown_reactor")
        /// The address is malformed.
        public static let invalidReactor = Code(rawValue: "invalid_reactor")
        /// The action's `type` is not one of the kind's actions.
        public static let unknownAction = Code(rawValue: "unknown_action")
        /// The action's members are wrong, or the reactor refused it.
        public static let invalidAction = Code(rawValue: "invalid_action")
        /// The connection has not joined the reactor it targets.
        public static let notJoined = Code(rawValue: "not_joined")
        /// The connection may not do this.
        public static let forbidden = Code(rawValue: "forbidden")
        /// The connection has no valid token yet, or the one it sent was refused.
        public static let unauthenticated = Code(rawValue: "unauthenticated")
        /// The connection sends actions faster than `limits.actionsPerSecond`.
        public static let rateLimited = Code(rawValue: "rate_limited")
        /// The connection has joined `limits.maxJoinsPerConnection` reactors already.
        public static let tooManyJoins = Code(rawValue: "too_many_joins")
        /// The server cannot take the request now (shutting down).
        public static let overloaded = Code(rawValue: "overloaded")
        /// The server failed; the message names what.
        public static let `internal` = Code(rawValue: "internal")
    }

    /// The error code.
    public var code: Code
    /// One readable sentence.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

extension ProtocolError {
    /// The refusal of an action that did not decode, worded for the kind it targeted:
    /// "counter has no action 'jump'; actions: increase, decrease".
    package init(_ error: ActionDecodingError, kind: String) {
        if case .unknownAction(let available) = error.problem {
            self.init(.unknownAction, "\(kind) has no action '\(error.action ?? "?")'; actions: \(available.joined(separator: ", "))")
        } else {
            self.init(.invalidAction, error.message)
        }
    }
}
