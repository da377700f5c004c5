/// The configured algorithm's key, ready to check signatures.
enum SignatureKey: Sendable {
    case hs256(HMACKey)
    case rs256(PublicKey)
    case es256(PublicKey)

    /// Loads the key of `algorithm` (once, at the verifier's start).
    init(_ algorithm: TokenAlgorithm) throws(TokenVerifierError) {
        switch algorithm {
        case .hs256(let secret):
            guard !secret.isEmpty else {
                throw TokenVerifierError(code: .weakKey, message: "HS256 needs a secret; the secret is empty")
            }
            guard let key = HMACKey(secret: secret) else {
                throw TokenVerifierError(code: .unreadableKey, message: "libcrypto could not key HMAC-SHA256 with the secret: \(LibCrypto.takeErrors())")
            }
            self = .hs256(key)
        case .rs256(let pem):
            self = .rs256(try PublicKey(pem: pem, kind: .rsa))
        case .es256(let pem):
            self = .es256(try PublicKey(pem: pem, kind: .p256))
        }
    }

    /// Whether `signature`, as decoded from the token's third part, signs `signingInput`
    /// (the token's first two parts with their `.`).
    func isValid(_ signature: [UInt8], of signingInput: [UInt8]) -> Bool {
        switch self {
        case .hs256(let key):
            key.isValid(signature, of: signingInput)
        case .rs256(let key):
            key.isValid(signature, of: signingInput)
        case .es256(let key):
            ECDSASignature.der(fromRaw: signature).map { key.isValid($0, of: signingInput) } ?? false
        }
    }
}
