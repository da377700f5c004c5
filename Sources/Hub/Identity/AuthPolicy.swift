public import Auth
import Foundation

/// How connections prove who they are (the `auth` section of CONFIG.md and PROTOCOL.md
/// "Identity and rights"); without one, every connection may join and act on everything.
public struct AuthPolicy: Sendable {
    /// Verifies tokens with the configured algorithm; holds the revocation list.
    public var verifier: TokenVerifier
    /// Whether a connection must authenticate (`auth.required`); otherwise it is
    /// anonymous until it does.
    public var required: Bool
    /// How long a connection may stay unauthenticated when `required` (`auth.timeoutMs`).
    public var timeout: Duration
    /// The rights of an anonymous connection (`auth.anonymousRights`).
    public var anonymousRights: Rights
    /// Revoked users (`POST /admin/revoke`); the verifier consults it too.
    public var revocations: RevocationList

    /// Creates a policy; `verifier` should have been made with `revocations`.
    public init(verifier: TokenVerifier, required: Bool = true, timeout: Duration = .seconds(10), anonymousRights: Rights = .none, revocations: RevocationList) {
        self.verifier = verifier
        self.required = required
        self.timeout = timeout
        self.anonymousRights = anonymousRights
        self.revocations = revocations
    }

    /// The token of an upgrade: `?token=JWT`, or `Authorization: Bearer JWT`.
    static func token(query: [String: String], authorization: String?) -> String? {
        if let token = query["token"], !token.isEmpty { return token }
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
