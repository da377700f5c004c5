/// A verifier that cannot be made from its configuration: a bad key, secret or leeway.
public struct TokenVerifierError: Error, Sendable, Hashable, CustomStringConvertible {
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

        /// The PEM text holds no public key libcrypto can read.
        public static let unreadableKey = Code(rawValue: "unreadableKey")
        /// A public key of another type than the algorithm needs (an EC key for RS256).
        public static let wrongKeyType = Code(rawValue: "wrongKeyType")
        /// A key or secret too weak to use: an RSA key under 2048 bits, an empty secret.
        public static let weakKey = Code(rawValue: "weakKey")
        /// A negative leeway.
        public static let invalidLeeway = Code(rawValue: "invalidLeeway")
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
