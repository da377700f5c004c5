/// Why an action could not be put in its wire form (PROTOCOL.md, "Action payloads"): the
/// value is not an enum the protocol can carry, or one of its values cannot be encoded.
public struct ActionEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What exactly was wrong.
    public enum Problem: Sendable, Hashable {
        /// The value encodes as something other than one enum case (a struct, an array, a
        /// number); `got` says what it wrote.
        case notAnAction(got: String)
        /// A case has an associated value labeled `type`, which the wire reserves for the
        /// action's name.
        case reservedMember
        /// An associated value failed to encode; `reason` is the encoder's explanation.
        case invalidMember(member: String, reason: String)
    }

    /// The case name, when the encoder got as far as reading it.
    public let action: String?
    /// What was wrong.
    public let problem: Problem

    /// Creates an error.
    public init(action: String?, problem: Problem) {
        self.action = action
        self.problem = problem
    }

    /// One readable sentence naming the action and what went wrong.
    public var message: String {
        let name = action ?? "?"
        switch problem {
        case .notAnAction(let got):
            return "an action must be an enum case (encoded as one keyed case or a raw string), got \(got)"
        case .reservedMember:
            return "action '\(name)' has a value labeled 'type', which the wire reserves for the action's name"
        case .invalidMember(let member, let reason):
            return "member '\(member)' of action '\(name)' cannot be encoded: \(reason)"
        }
    }

    /// The message.
    public var description: String { message }
}
