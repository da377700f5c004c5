import Reactor
import ReactorHubProtocol
import Foundation

/// Who a session is, and what it may do (PROTOCOL.md "Identity and rights").
///
/// The payloads are boxed (`indirect`): the enum is one word, inline in every session, and
/// a box is allocated only for a session that has rights or a token (BENCHMARKS.md, "Idle
/// memory per connection (issue 38)").
enum SessionIdentity: Sendable {
    /// No `auth` section: every reactor, every action.
    case open
    /// `auth.required` and no valid token yet: only `auth` and `ping` are served.
    case awaiting
    /// `auth.required` false and no token: the anonymous rights.
    indirect case anonymous(any AccessRights)
    /// A verified token.
    indirect case user(Identity)

    /// The user for `hello` and `authed`: the token's `sub`, nil otherwise.
    var user: String? {
        if case .user(let token) = self { return token.subject }
        return nil
    }

    /// Who the connection is, as `hello` says it.
    var hello: HelloIdentity {
        switch self {
        case .open: .open
        case .awaiting: .awaiting
        case .anonymous: .anonymous
        case .user(let token): .user(token.subject)
        }
    }

    /// Who an action of this identity comes from, as its kind sees it (`Sender`): the
    /// token's user and its claims other than the registered ones.
    func sender(session: String, node: String?, transport: Sender.Transport) -> Sender {
        var claims: [String: Claim] = [:]
        if case .user(let token) = self { claims = token.senderClaims }
        return Sender(user: user, claims: claims, session: session, node: node, transport: transport)
    }

    /// Whom what it creates and sends counts against (`limits.maxInstancesPerUser`, the
    /// HTTP action rate): its user, or the peer address when anonymous.
    func quotaKey(peer: String) -> String {
        user.map { "user \($0)" } ?? "address \(peer)"
    }

    var isAuthenticated: Bool {
        if case .awaiting = self { return false }
        return true
    }

    /// Nil when `right` on `address` is allowed, else the `forbidden` sentence.
    func refusal(_ right: Access, _ address: ReactorAddress) -> String? {
        switch self {
        case .open:
            return nil
        case .awaiting:
            return "authenticate first"
        case .anonymous(let rights):
            return rights.refusal(right, on: address)
        case .user(let identity):
            return identity.rights.refusal(right, on: address)
        }
    }
}
