/// A failure of the state store, with a sentence for the operator.
public struct PersistenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, naming the file.
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
