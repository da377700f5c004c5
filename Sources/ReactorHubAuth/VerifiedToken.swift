public import Foundation
public import ReactorHubJSON

/// A token whose signature, claims and rights all checked out: who the connection is and
/// what it may do, until when.
public struct VerifiedToken: Sendable, Hashable {
    /// The `sub` claim: the user, 1 to 128 Unicode scalars (so at most 512 UTF-8 bytes).
    public let subject: String
    /// The `exp` claim. A connection stays open until `TokenVerifier.deadline(of:)`, which
    /// adds the leeway.
    public let expiresAt: Date
    /// The `iat` claim, when present; what revocation compares with.
    public let issuedAt: Date?
    /// The `nbf` claim, when present.
    public let notBefore: Date?
    /// The rights of the `rh` claim, bound to `subject`; `Rights.none` without `rh`.
    public let rights: Rights
    /// The claims other than the registered ones (`sub`, `exp`, `nbf`, `iat`, `aud`,
    /// `iss`, `jti`) and `rh`: what an application put in the token (a name, a role).
    public let claims: [String: JSONValue]

    /// Creates a verified token; `TokenVerifier.verify` is the way to get one from a token.
    public init(subject: String, expiresAt: Date, issuedAt: Date?, notBefore: Date?, rights: Rights, claims: [String: JSONValue] = [:]) {
        self.subject = subject
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.notBefore = notBefore
        self.rights = rights
        self.claims = claims
    }

    /// Whether `other` names the same user, byte for byte.
    ///
    /// A verified token's subject is in NFC (`TokenSubject`), so canonically equivalent
    /// spellings (the Kelvin sign `\u{212A}` and `K`, a composed and a decomposed `é`) are
    /// one user already; comparing bytes keeps that explicit for tokens built otherwise.
    public func hasSameSubject(as other: VerifiedToken) -> Bool {
        subject.utf8.elementsEqual(other.subject.utf8)
    }
}
