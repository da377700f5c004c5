/// A rights pattern that breaks the grammar of PROTOCOL.md "Patterns", with what is accepted.
public struct RightsPatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let pattern: String
    /// What is wrong with it and what is accepted.
    public let message: String

    /// Creates an error for `pattern`.
    public init(pattern: String, message: String) {
        self.pattern = pattern
        self.message = message
    }

    /// One sentence naming the pattern: `invalid rights pattern 'doc/a*b': …`.
    public var description: String {
        "invalid rights pattern '\(pattern)': \(message)"
    }
}
