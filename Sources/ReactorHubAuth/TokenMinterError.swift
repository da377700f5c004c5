/// A token that cannot be minted, or a lifetime that cannot be read, with what is accepted.
public struct TokenMinterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of the error; open for additions without breaking callers.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String

        /// Creates a code from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's name.
        public var description: String { rawValue }

        /// The secret is empty.
        public static let emptySecret = Code(rawValue: "emptySecret")
        /// The subject breaks the rule of the `sub` claim.
        public static let invalidSubject = Code(rawValue: "invalidSubject")
        /// A rights pattern breaks the grammar.
        public static let invalidPattern = Code(rawValue: "invalidPattern")
        /// A lifetime that is not a positive whole number followed by s, m, h or d.
        public static let invalidTTL = Code(rawValue: "invalidTTL")
        /// libcrypto could not compute the signature.
        public static let cryptoFailure = Code(rawValue: "cryptoFailure")
    }

    /// What kind of error this is.
    public let code: Code
    /// One readable sentence: what is wrong and what is accepted.
    public let message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
