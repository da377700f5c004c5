/// The one signing algorithm a `TokenVerifier` accepts, with its key, from the configuration.
///
/// The algorithm always comes from here, never from a token's header: a header that names
/// another one (`none`, or `HS256` against an RSA key: key confusion) is refused.
public enum TokenAlgorithm: Sendable, Hashable {
    /// HMAC with SHA-256 and a shared secret (`auth.hs256Secret`). RFC 7518 §3.2 asks for
    /// at least 32 bytes; an empty secret is refused.
    case hs256(secret: [UInt8])
    /// RSASSA-PKCS1-v1_5 with SHA-256; the PEM public key (`-----BEGIN PUBLIC KEY-----`) of
    /// an RSA key of 2048 bits or more (RFC 7518 §3.3).
    case rs256(publicKeyPEM: String)
    /// ECDSA on P-256 with SHA-256; the PEM public key of a P-256 key.
    case es256(publicKeyPEM: String)

    /// The `alg` a token's header must name: `HS256`, `RS256` or `ES256`.
    public var name: String {
        switch self {
        case .hs256: "HS256"
        case .rs256: "RS256"
        case .es256: "ES256"
        }
    }
}
