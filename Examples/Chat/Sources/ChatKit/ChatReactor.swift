import Foundation
import Reactor

/// A shared chat room. Who says what is the sender's user, from its token; only the author
/// may edit a message; the member list follows the connections that joined and left.
public final class ChatReactor: Reactor {
    public enum Action: Decodable, Sendable {
        /// Says `text` as the sender.
        case say(text: String)
        /// Replaces the text of the sender's own message `id`.
        case edit(id: String, text: String)
    }

    public enum Mutation: Sendable {
        case append(ChatMessage)
        case replace(id: String, text: String)
        /// A connection joined (`user` nil: anonymous) or left.
        case joined(session: String, user: String?)
        case left(session: String)
    }

    public struct State: Codable, Sendable, Equatable {
        /// The messages, oldest first, at most `maxMessages`.
        public var messages: [ChatMessage] = []
        /// The users with at least one connection in the room, in the order they came.
        public var members: [String] = []
        /// The connections in the room and their users: what `members` is made of. Not
        /// part of the state clients see, nor kept across a restart (no connection is).
        var sessions: [String: String] = [:]

        enum CodingKeys: String, CodingKey {
            case messages, members
        }

        public init(messages: [ChatMessage] = [], members: [String] = []) {
            self.messages = messages
            self.members = members
        }

        /// Equal as clients see them: the same messages and members.
        public static func == (lhs: State, rhs: State) -> Bool {
            lhs.messages == rhs.messages && lhs.members == rhs.members
        }
    }

    public let initialState = State()
    let settings: ChatSettings
    let makeID: @Sendable () -> String

    /// A chat with `settings`; `makeID` names each new message (a UUID by default).
    public init(settings: ChatSettings = ChatSettings(), makeID: @escaping @Sendable () -> String = { UUID().uuidString }) {
        self.settings = settings
        self.makeID = makeID
    }

    public func mutate(action: Action, from sender: Sender?) throws -> Effect<Mutation> {
        guard let user = sender?.user else {
            throw ActionRefusal.forbidden("this chat signs every message with its author's user: connect with a token")
        }
        switch action {
        case .say(let text):
            try check(text)
            return .just(.append(ChatMessage(id: makeID(), author: user, text: text)))
        case .edit(let id, let text):
            guard let message = currentState.messages.first(where: { $0.id == id }) else {
                throw ActionRefusal("no message '\(id)' in this chat")
            }
            guard message.author == user else {
                throw ActionRefusal.forbidden("only the author of a message may edit it; '\(id)' is \(message.author)'s")
            }
            try check(text)
            return .just(.replace(id: id, text: text))
        }
    }

    private func check(_ text: String) throws {
        guard (1...settings.maxTextLength).contains(text.count) else {
            throw ActionRefusal("a message has 1 to \(settings.maxTextLength) characters (reactors.chat.maxTextLength), got \(text.count)")
        }
    }

    /// A state read back after a restart or a takeover: its messages, and no members (the
    /// connections that join from now on are the members).
    @Sendable public static func restored(_ state: State) -> State {
        State(messages: state.messages)
    }

    public func mutation(for membership: Membership) -> Mutation? {
        switch membership.change {
        case .joined: .joined(session: membership.member.session, user: membership.member.user)
        case .left: .left(session: membership.member.session)
        }
    }

    public func reduce(state: State, mutation: Mutation) -> State {
        var state = state
        switch mutation {
        case .append(let message):
            state.messages.append(message)
            if state.messages.count > settings.maxMessages {
                state.messages.removeFirst(state.messages.count - settings.maxMessages)
            }
        case .replace(let id, let text):
            if let index = state.messages.firstIndex(where: { $0.id == id }) {
                state.messages[index].text = text
            }
        case .joined(let session, let user):
            guard let user else { break }
            state.sessions[session] = user
            if !state.members.contains(user) { state.members.append(user) }
        case .left(let session):
            guard let user = state.sessions.removeValue(forKey: session) else { break }
            if !state.sessions.values.contains(user) {
                state.members.removeAll { $0 == user }
            }
        }
        return state
    }
}
