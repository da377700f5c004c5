/// Why the configuration cannot be used: one line that names the key (or flag, or
/// variable) and what is accepted. The daemon prints it and exits with status 2.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sentence shown to the operator.
    public var message: String

    /// Creates an error with its sentence.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
