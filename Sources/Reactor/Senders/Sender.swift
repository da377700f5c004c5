/// Who sent an action: the user and the connection it came through, handed to
/// `mutate(action:from:)` (and with a join or a leave, `Membership`). The server fills it
/// from the connection's verified token, never from what the action says, so a reactor
/// may trust it: a chat message's author is `sender.user`, not a member of the action.
public struct Sender: Sendable, Hashable, CustomStringConvertible {
    /// How an action reached the server.
    public enum Transport: String, Sendable, Hashable {
        /// A WebSocket connection (PROTOCOL.md).
        case webSocket
        /// The HTTP API (`POST …/actions`).
        case http
    }

    /// The user: the token's `sub`; nil for an anonymous connection, or on a server
    /// without an `auth` section.
    public var user: String?
    /// The token's claims other than the registered ones (`sub`, `exp`, `iat`, `nbf`,
    /// `aud`, `iss`, `rh`), for a kind that reads a claim of its own (a display name, a role).
    public var claims: [String: Claim]
    /// The connection (`hello.session`): one user may have several.
    public var session: String
    /// The node the connection is on (`hello.node`); nil on a single daemon.
    public var node: String?
    /// How the action came.
    public var transport: Transport

    /// A sender.
    public init(user: String?, claims: [String: Claim] = [:], session: String, node: String? = nil, transport: Transport = .webSocket) {
        self.user = user
        self.claims = claims
        self.session = session
        self.node = node
        self.transport = transport
    }

    public var description: String {
        "\(user ?? "anonymous") (\(session))"
    }
}

/// A token claim a kind may read: JSON scalars as they are, arrays and objects as their
/// compact JSON text.
public enum Claim: Sendable, Hashable {
    /// A JSON string.
    case string(String)
    /// A JSON number without a fraction or exponent, within `Int`.
    case integer(Int)
    /// Another JSON number.
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// An array or an object, as compact JSON.
    case json(String)

    /// The claim when it is a string.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
