/// Why an action payload was refused, with the facts a caller needs to phrase its own
/// sentence (`problem`) and a default sentence (`message`).
public struct ActionDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The protocol error code: `unknown_action` or `invalid_action`.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as PROTOCOL.md spells it.
        public let rawValue: String

        /// Creates a code from its name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The code's name.
        public var description: String { rawValue }

        /// The `type` names no action of the reactor.
        public static let unknownAction = Code(rawValue: "unknown_action")
        /// The payload's shape or a member is wrong.
        public static let invalidAction = Code(rawValue: "invalid_action")
    }

    /// What exactly was wrong.
    public enum Problem: Sendable, Hashable {
        /// `type` names no action; `available` lists the action names in declaration order.
        case unknownAction(available: [String])
        /// The payload is neither an object nor a string; `got` is e.g. "a number".
        case notAnAction(got: String)
        /// The object has no `type` member.
        case missingType
        /// `type` is not a string.
        case typeNotAString(got: String)
        /// A required member is absent; `expected` is its JSON type, e.g. "string".
        case missingMember(member: String, expected: String)
        /// A member has the wrong JSON type; `expected` as in the schema, `got` e.g. "a number".
        case wrongMemberType(member: String, expected: String, got: String)
        /// The payload has a member the action does not take; `members` are those it takes.
        case unknownMember(member: String, members: [ActionSchema.Member])
        /// A member has the right JSON type but an unacceptable value or content.
        case invalidMember(member: String, reason: String)
        /// The action type refused the payload for another reason.
        case rejected(reason: String)
    }

    /// The action name from the payload's `type`, when there was one.
    public let action: String?
    /// What was wrong.
    public let problem: Problem

    /// Creates an error.
    public init(action: String?, problem: Problem) {
        self.action = action
        self.problem = problem
    }

    /// `unknownAction` for an unknown name, `invalidAction` for everything else.
    public var code: Code {
        if case .unknownAction = problem { return .unknownAction }
        return .invalidAction
    }

    /// One readable sentence naming the member and what is expected.
    public var message: String {
        let name = action ?? "?"
        switch problem {
        case .unknownAction(let available):
            let list = available.isEmpty ? "none are known" : "actions: " + available.joined(separator: ", ")
            return "unknown action '\(name)'; \(list)"
        case .notAnAction(let got):
            return "an action must be an object with a 'type' member, or a string, got \(got)"
        case .missingType:
            return "an action object must have a 'type' member naming the action"
        case .typeNotAString(let got):
            return "member 'type' of an action must be a string, got \(got)"
        case .missingMember(let member, let expected):
            return "action '\(name)' is missing member '\(member)' (\(expected))"
        case .wrongMemberType(let member, let expected, let got):
            return "member '\(member)' of action '\(name)' must be \(Self.phrase(expected)), got \(got)"
        case .unknownMember(let member, let members):
            let list = members.isEmpty
                ? "it takes no members"
                : "members: " + members.map(\.description).joined(separator: ", ")
            return "action '\(name)' has no member '\(member)'; \(list)"
        case .invalidMember(let member, let reason):
            return "member '\(member)' of action '\(name)' is invalid: \(reason)"
        case .rejected(let reason):
            return "action '\(name)' is invalid: \(reason)"
        }
    }

    /// The message.
    public var description: String { message }

    /// "a string", "an integer or null"… for a schema type name.
    static func phrase(_ schemaType: String) -> String {
        let optional = schemaType.hasSuffix("?")
        let base = optional ? String(schemaType.dropLast()) : schemaType
        return JSONTypeName(name: base, isOptional: optional).phrase
    }
}
