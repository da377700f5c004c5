import Foundation

/// How connections prove who they are (the `auth` section of CONFIG.md and PROTOCOL.md
/// "Identity and rights"); without one, every connection may join and act on everything.
public struct AuthPolicy: Sendable {
    /// Verifies tokens and keeps revocations (JWTs: `ReactorHubAuth`'s verifier).
    public var verifier: any IdentityVerifier
    /// Whether a connection must authenticate (`auth.required`); otherwise it is
    /// anonymous until it does.
    public var required: Bool
    /// How long a connection may stay unauthenticated when `required` (`auth.timeoutMs`).
    public var timeout: Duration
    /// The rights of an anonymous connection (`auth.anonymousRights`).
    public var anonymousRights: any AccessRights

    /// Creates a policy.
    public init(verifier: any IdentityVerifier, required: Bool = true, timeout: Duration = .seconds(10), anonymousRights: any AccessRights) {
        self.verifier = verifier
        self.required = required
        self.timeout = timeout
        self.anonymousRights = anonymousRights
    }

    /// The token of an upgrade: `?token=JWT`, or `Authorization: Bearer JWT` (the scheme in
    /// any case, then spaces, the token, and optional trailing spaces or tabs).
    ///
    /// Read as bytes: this runs for every upgrade on the service thread, and Foundation's
    /// trimming of a header this long cost more than verifying the token.
    static func token(query: [String: String], authorization: String?) -> String? {
        if let token = query["token"], !token.isEmpty { return token }
        guard let authorization else { return nil }
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")
        var bytes = Substring(authorization).utf8[...]
        let scheme = "bearer".utf8
        guard bytes.count > scheme.count,
              zip(bytes.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 }),
              bytes[bytes.index(bytes.startIndex, offsetBy: scheme.count)] == space
        else { return nil }
        bytes = bytes.dropFirst(scheme.count)
        while let first = bytes.first, first == space { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == space || last == tab { bytes = bytes.dropLast() }
        return bytes.isEmpty ? nil : String(Substring(bytes))
    }
}
