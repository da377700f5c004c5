public import Foundation
internal import ReactorHubJSON

/// Mints HS256 tokens for the operator (`reactorhub token --sub alice --read 'doc/*'
/// --act 'doc/team-*' --ttl 1h`): `{"sub","iat","exp","rh":{"read","act"}}`.
///
/// What it mints, a `TokenVerifier` configured with the same secret accepts: the subject
/// and patterns are checked by the verifier's own rules first.
public struct TokenMinter: Sendable {
    private let secret: [UInt8]

    /// Creates a minter with the secret of `auth.hs256Secret`; an empty secret is refused.
    public init(secret: [UInt8]) throws(TokenMinterError) {
        guard !secret.isEmpty else {
            throw TokenMinterError(code: .emptySecret, message: "HS256 needs a secret; the secret is empty")
        }
        self.secret = secret
    }

    /// A token for `subject` with these rights, issued at `now` (whole seconds) and valid for `ttl`.
    public func mint(subject: String, read: [String], act: [String], ttl: Duration, now: Date) throws(TokenMinterError) -> String {
        do {
            _ = try TokenClaims.subject(.string(subject))
        } catch {
            throw TokenMinterError(code: .invalidSubject, message: error.message)
        }
        do {
            _ = try Rights.parse(read: read, act: act, subject: subject)
        } catch {
            throw TokenMinterError(code: .invalidPattern, message: error.description)
        }
        let lifetime = ttl.components.seconds
        guard lifetime > 0 else {
            throw TokenMinterError(code: .invalidTTL, message: "the lifetime is \(ttl), expected at least 1 second")
        }
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        let rights: JSONObject = ["read": .array(read.map(JSONValue.string)), "act": .array(act.map(JSONValue.string))]
        let claims: JSONObject = [
            "sub": .string(subject),
            "iat": .int(Int(issuedAt)),
            "exp": .int(Int(issuedAt + lifetime)),
            "rh": .object(rights),
        ]
        return try sign(claims: claims)
    }

    private func sign(claims: JSONObject) throws(TokenMinterError) -> String {
        let header: JSONObject = ["alg": "HS256", "typ": "JWT"]
        let signingInput = Base64URL.encode(JSONValue.object(header).serialized()) + "." + Base64URL.encode(JSONValue.object(claims).serialized())
        guard let mac = HMACSHA256.mac(Array(signingInput.utf8), key: secret) else {
            throw TokenMinterError(code: .cryptoFailure, message: "libcrypto could not compute HMAC-SHA256: \(LibCrypto.takeErrors())")
        }
        return signingInput + "." + Base64URL.encode(mac)
    }
}
