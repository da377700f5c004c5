/// A failure of the transport, with a stable code and a sentence for the operator.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is; new codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The listening socket could not be created or bound.
        public static let cannotListen = Code(rawValue: "cannot_listen")
        /// The configuration is not usable.
        public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
        /// The server was started twice, or used after shutdown.
        public static let invalidState = Code(rawValue: "invalid_state")
    }

    /// The kind of failure.
    public var code: Code
    /// One readable sentence that says what went wrong.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
