package import ReactorHubJSON

/// How the engine writes every message it sends (the codec seam, DESIGN.md): JSON text
/// frames as PROTOCOL.md writes them (`JSONCodec`) today; another encoding, or frames
/// prepared for a transport (compressed once per broadcast), is another codec.
package protocol MessageCodec: Sendable {
    /// Writable bytes in front of every payload, for the transport to frame it in place.
    var headroom: Int { get }

    /// `hello`, the first message of a connection.
    func hello(server: String, session: String, identity: HelloIdentity, node: String?, reactors: [UInt8]) -> OutboundMessage
    /// `authed`, the answer to an `auth` message.
    func authed(ref: Ref?, user: String, expires: Int) -> OutboundMessage
    /// `snapshot`: the state (its compact JSON) at `version`, with who is there, and the
    /// state's checksum for a client that asked (`sum`, PROTOCOL.md "Checksums").
    func snapshot(
        _ address: String, ref: Ref?, epoch: String, version: Int, state: [UInt8], presence: PresenceSnapshot, sum: String?
    ) -> OutboundMessage
    /// `resumed`: the client's `version` still holds (with its checksum, `sum`); the
    /// missed patches follow.
    func resumed(_ address: String, ref: Ref?, epoch: String, version: Int, presence: PresenceSnapshot, sum: String?) -> OutboundMessage
    /// `patch`: the operations (a JSON array) that lead from `base` to `version`, with the
    /// checksum of the state at `version` for the clients that asked.
    func patch(_ address: String, version: Int, base: Int, operations: some Collection<UInt8>, sum: String?) -> PatchFrame
    /// One frame spanning consecutive frames of one instance.
    func merge(_ frames: ArraySlice<PatchFrame>) -> PatchFrame
    /// `pulse`: a `@Pulse` property fired.
    func pulse(_ address: String, version: Int, name: String, value: JSONValue) -> OutboundMessage
    /// `presence`: who joined or left, or how many are there.
    func presence(_ address: String, _ change: PresenceChange) -> OutboundMessage
    /// `left`, the answer to `leave` (or unsolicited, with a reason).
    func left(_ address: String, ref: Ref?, reason: String?) -> OutboundMessage
    /// `ack` of an accepted action (PROTOCOL.md "Acks").
    func ack(_ address: String, ref: Ref?, version: Int, applied: Int) -> OutboundMessage
    /// `error`: a refusal.
    func error(_ error: ProtocolError, ref: Ref?) -> OutboundMessage
    /// `pong`.
    func pong(ref: Ref?) -> OutboundMessage
    /// A remembered reply sent again to a resend of its action id: with the resend's `ref`
    /// and `"duplicate":true`; nil when `reply` is not a message this codec wrote.
    func duplicate(of reply: [UInt8], ref: Ref?) -> OutboundMessage?
    /// A message already encoded by this codec (a reply or a pulse read back from a log),
    /// labelled as what it is.
    func message(_ bytes: some Collection<UInt8>, label: MessageLabel) -> OutboundMessage
    /// What an `ack` or `error` this codec wrote says, for an answer that is not a frame
    /// (the HTTP API's); nil when `message` is neither.
    func actionReply(_ message: OutboundMessage) -> ActionReply?
}

extension MessageCodec {
    /// A reply already encoded by this codec.
    package func message(_ bytes: some Collection<UInt8>) -> OutboundMessage {
        message(bytes, label: .reply)
    }
}

/// What the answer to one action says (PROTOCOL.md "Acks", "Actions that are safe to resend").
package enum ActionReply: Sendable, Equatable {
    /// Accepted: the version before it and the version once its immediate mutations applied.
    case ack(version: Int, applied: Int, duplicate: Bool)
    /// Refused; nothing changed.
    case error(ProtocolError, duplicate: Bool)
}

extension MessageCodec {
    /// `snapshot` without a checksum.
    package func snapshot(_ address: String, ref: Ref?, epoch: String, version: Int, state: [UInt8], presence: PresenceSnapshot) -> OutboundMessage {
        snapshot(address, ref: ref, epoch: epoch, version: version, state: state, presence: presence, sum: nil)
    }

    /// `resumed` without a checksum.
    package func resumed(_ address: String, ref: Ref?, epoch: String, version: Int, presence: PresenceSnapshot) -> OutboundMessage {
        resumed(address, ref: ref, epoch: epoch, version: version, presence: presence, sum: nil)
    }

    /// `patch` without a checksum.
    package func patch(_ address: String, version: Int, base: Int, operations: some Collection<UInt8>) -> PatchFrame {
        patch(address, version: version, base: base, operations: operations, sum: nil)
    }
}

/// Who the connection is, as `hello` says it.
package enum HelloIdentity: Sendable {
    /// No identity rules: nothing is said.
    case open
    /// A token is required and none was given yet: `"auth":"required"`.
    case awaiting
    /// No token, anonymous rights: `"user":null`.
    case anonymous
    /// A verified token's `sub`.
    case user(String)
}

/// One connection's presence in a reactor: its user (nil: anonymous) and its state's
/// compact JSON.
package struct PresenceEntry: Sendable, Equatable {
    package var user: String?
    package var state: [UInt8]

    package init(user: String?, state: [UInt8]) {
        self.user = user
        self.state = state
    }
}

/// What a `snapshot` or `resumed` says of presence (PROTOCOL.md "Presence").
package enum PresenceSnapshot: Sendable {
    /// Every entry by session, in session order (none: `"presence":{}`).
    case entries([(session: String, entry: PresenceEntry)])
    /// More than `presence.maxListed`: only how many.
    case count(Int)

    /// About how many bytes it takes written.
    package var byteCount: Int {
        switch self {
        case .entries(let entries): entries.reduce(16) { $0 + $1.session.utf8.count + $1.entry.state.count + 32 }
        case .count: 24
        }
    }
}

/// What a presence broadcast says.
package enum PresenceChange: Sendable {
    /// Sessions that set (or changed) their presence, and sessions that left.
    case changes(joins: [(session: String, entry: PresenceEntry)], leaves: [String])
    /// More than `presence.maxListed`: only how many.
    case count(Int)
}
