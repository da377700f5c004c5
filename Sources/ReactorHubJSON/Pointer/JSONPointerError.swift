/// Why a JSON Pointer's text was rejected.
public struct JSONPointerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of a pointer error.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String

        /// Creates a code from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's name.
        public var description: String { rawValue }

        /// A non-empty pointer that does not start with `/`.
        public static let missingLeadingSlash = Code(rawValue: "missingLeadingSlash")
        /// A `~` not followed by `0` or `1`.
        public static let invalidEscape = Code(rawValue: "invalidEscape")
    }

    /// What kind of error this is.
    public let code: Code
    /// The rejected text.
    public let pointer: String

    /// Creates an error for the rejected text.
    public init(code: Code, pointer: String) {
        self.code = code
        self.pointer = pointer
    }

    /// One readable sentence saying what is wrong and what is accepted.
    public var message: String {
        switch code {
        case .missingLeadingSlash:
            "JSON Pointer '\(pointer)' must be empty or start with '/'"
        case .invalidEscape:
            "JSON Pointer '\(pointer)' has a '~' not followed by '0' or '1'"
        default:
            "JSON Pointer '\(pointer)' is invalid"
        }
    }

    /// The message.
    public var description: String { message }
}
