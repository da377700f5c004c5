/// Why a token was not accepted: one of PROTOCOL.md's reasons and a readable sentence.
///
/// The reason is what the client sees (the one-line body of an HTTP 401, the `error`
/// message of a refused `auth`); the message says what exactly was wrong, for logs and for
/// the person who made the token. Neither holds the token or any key.
public struct TokenRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reasons of PROTOCOL.md "Identity and rights", spelled as there.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// `exp` plus the leeway has passed.
        case expired = "expired"
        /// `nbf` (or `iat`) minus the leeway is still ahead.
        case notYetValid = "not yet valid"
        /// The signature does not match the header and payload under the configured key.
        case badSignature = "bad signature"
        /// Not a compact JWS, not canonical base64url, not JSON objects, a duplicate member,
        /// a claim of the wrong type or out of range, or an invalid `rh`.
        case malformed = "malformed"
        /// `aud` does not name the configured audience.
        case audience = "audience"
        /// `iss` is not the configured issuer.
        case issuer = "issuer"
        /// The header's `alg` is not the configured algorithm (`none` included).
        case algorithm = "algorithm"
        /// The subject was revoked after (or without a record of) when the token was issued.
        case revoked = "revoked"
    }

    /// The reason, as PROTOCOL.md names it.
    public let reason: Reason
    /// One sentence that says what was wrong and what is accepted.
    public let message: String

    /// Creates a refusal.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The reason followed by the message: `expired: the token expired at …`.
    public var description: String {
        "\(reason.rawValue): \(message)"
    }
}
