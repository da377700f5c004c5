/// The error `mutate(action:)` throws to refuse an invalid action, with a message for its sender.
public struct ActionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why the action was refused, readable by the person who sent it.
    public var message: String

    /// Creates a refusal with a message for the sender.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String {
        message
    }
}
