public import Foundation
public import ReactorHubProtocol
public import ReactorHubJSON
import Reactor

/// Who a connection or a request is, as the engine sees it: what an `IdentityVerifier`
/// made of a token (PROTOCOL.md "Identity and rights"). The engine knows no token format;
/// the daemon hands it a verifier (JWTs, from `ReactorHubAuth`).
public struct Identity: Sendable {
    /// The user (the token's `sub`).
    public var subject: String
    /// When the token was issued, when it says (revocation compares it).
    public var issuedAt: Date?
    /// When the token stops being valid (its expiry, with the verifier's leeway).
    public var validUntil: Date
    /// The expiry the token states (`authed.expires`).
    public var expires: Date
    /// What the user may do.
    public var rights: any AccessRights
    /// The token's claims a kind may read (`Sender.claims`): those beyond the registered ones.
    public var claims: [String: JSONValue]

    /// An identity of `subject`.
    public init(
        subject: String, issuedAt: Date?, validUntil: Date, expires: Date, rights: any AccessRights, claims: [String: JSONValue] = [:]
    ) {
        self.subject = subject
        self.issuedAt = issuedAt
        self.validUntil = validUntil
        self.expires = expires
        self.rights = rights
        self.claims = claims
    }

    /// The claims as a reactor reads them (`Sender.claims`).
    var senderClaims: [String: Claim] {
        claims.mapValues { value in
            switch value {
            case .string(let text): .string(text)
            case .int(let number): .integer(number)
            case .double(let number): .number(number)
            case .bool(let flag): .bool(flag)
            case .null: .null
            case .array, .object:
                .json({ var writer = JSONWriter(); writer.writeValue(value); return String(decoding: writer.bytes, as: UTF8.self) }())
            }
        }
    }

    /// Whether `other` is the same user (their subjects are the same text).
    public func hasSameSubject(as other: Identity) -> Bool {
        subject.utf8.elementsEqual(other.subject.utf8)
    }
}

/// The two rights of PROTOCOL.md: `read` (join, resume, presence) and `act` (actions).
public enum Access: String, Sendable, Hashable, CustomStringConvertible {
    case read
    case act

    public var description: String { rawValue }
}

/// What a user may do, reactor by reactor.
public protocol AccessRights: Sendable {
    /// Nil when `access` on `address` is allowed, else the `forbidden` sentence, which
    /// names the reactor and the right that is missing.
    func refusal(_ access: Access, on address: ReactorAddress) -> String?
}

/// A token that was refused: `reason` is PROTOCOL.md's word for why (`expired`,
/// `bad signature`, `malformed`, `revoked`, …), said in upgrade refusals and metrics;
/// `message` is the sentence for an `error`.
public struct IdentityRefusal: Error, Sendable, Equatable {
    public var reason: String
    public var message: String

    /// A refusal for `reason`.
    public init(reason: String, message: String) {
        self.reason = reason
        self.message = message
    }
}

/// Turns tokens into identities, and keeps revocations: the identity seam the engine is
/// handed (DESIGN.md "identity is a verifier the core is handed").
public protocol IdentityVerifier: Sendable {
    /// Verifies `token` at `now`: its signature, times, audience, issuer and revocation.
    func verify(_ token: String, now: Date) -> Result<Identity, IdentityRefusal>
    /// Whether `identity`, verified earlier, has been revoked since.
    func isRevoked(_ identity: Identity) -> Bool
    /// Revokes every token of `subject` issued before `time` (or saying no issue time);
    /// returns the subject as identities hold it (its canonical form: the same user
    /// however it was spelled), to find the connections to close.
    @discardableResult
    func revoke(subject: String, at time: Date) -> String
}
