public import Foundation
public import ReactorHubEngine
public import ReactorHubProtocol

/// The engine's identity seam on JWTs: verifies with a `TokenVerifier` and keeps
/// revocations in a `RevocationList`, which the verifier consults too.
public struct JWTIdentityVerifier: IdentityVerifier {
    /// Verifies the tokens (algorithm, key, claims, times).
    public let verifier: TokenVerifier
    /// Revoked users (`POST /admin/revoke`).
    public let revocations: RevocationList

    /// A verifier; `verifier` should have been made with `revocations`.
    public init(verifier: TokenVerifier, revocations: RevocationList) {
        self.verifier = verifier
        self.revocations = revocations
    }

    public func verify(_ token: String, now: Date) -> Result<Identity, IdentityRefusal> {
        switch verifier.verify(token, now: now) {
        case .success(let verified):
            return .success(Identity(
                subject: verified.subject, issuedAt: verified.issuedAt, validUntil: verifier.deadline(of: verified),
                expires: verified.expiresAt, rights: verified.rights, claims: verified.claims
            ))
        case .failure(let refusal):
            return .failure(IdentityRefusal(reason: refusal.reason.rawValue, message: refusal.message))
        }
    }

    public func isRevoked(_ identity: Identity) -> Bool {
        revocations.isRevoked(subject: identity.subject, issuedAt: identity.issuedAt)
    }

    public func revoke(subject: String, at time: Date) -> String {
        let canonical = TokenSubject.normalized(subject)
        revocations.revoke(subject: canonical, at: time)
        return canonical
    }
}

extension Rights: AccessRights {
    public func refusal(_ access: Access, on address: ReactorAddress) -> String? {
        forbiddenMessage(access == .read ? .read : .act, kind: address.kind, id: address.id)
    }
}
