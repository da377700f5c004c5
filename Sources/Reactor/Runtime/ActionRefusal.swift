/// The error `mutate(action:)` throws to refuse an action, with a message for its sender:
/// an action that makes no sense in the current state (`invalid_action`), or one the sender
/// may not make by a rule of the reactor's own (`forbidden`).
public struct ActionRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of refusal; new codes may be added.
    public struct Code: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The action makes no sense now (`invalid_action`).
        public static let invalid = Code(rawValue: "invalid_action")
        /// The sender may not make it (`forbidden`), by the reactor's own rule.
        public static let forbidden = Code(rawValue: "forbidden")
    }

    /// Why the action was refused, readable by the person who sent it.
    public var message: String
    /// Which refusal.
    public var code: Code

    /// Creates a refusal of an invalid action with a message for the sender.
    public init(_ message: String) {
        self.message = message
        self.code = .invalid
    }

    /// A refusal by a rule of the reactor's own: the sender gets `forbidden` with `message`.
    public static func forbidden(_ message: String) -> ActionRefusal {
        var refusal = ActionRefusal(message)
        refusal.code = .forbidden
        return refusal
    }

    public var description: String {
        message
    }
}
