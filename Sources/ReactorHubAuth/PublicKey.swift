internal import CCrypto

/// A public key loaded once from PEM, and SHA-256 signature checks with it (RS256, ES256).
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never modified after `init`; every check makes
/// an `EVP_MD_CTX` of its own, and OpenSSL 3 allows one key to be read from several threads
/// at once (openssl-threads(7)). The key is freed once, in `deinit`.
final class PublicKey: @unchecked Sendable {
    /// The key types the verifier takes.
    enum Kind: Sendable {
        /// RSA of at least `minimumRSABits`, for RS256 with PKCS#1 v1.5 padding.
        case rsa
        /// EC on the P-256 curve, for ES256.
        case p256
    }

    /// RFC 7518 §3.3: "A key of size 2048 bits or larger MUST be used".
    static let minimumRSABits: Int32 = 2048

    let kind: Kind
    private let key: OpaquePointer

    /// Reads the first `PUBLIC KEY` block of `pem`; throws unless it is a key of `kind`.
    init(pem: String, kind: Kind) throws(TokenVerifierError) {
        LibCrypto.clearErrors()
        let bytes = Array(pem.utf8)
        let loaded: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard raw.count > 0, raw.count <= Int(Int32.max), let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                return nil
            }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let loaded else {
            throw TokenVerifierError(
                code: .unreadableKey,
                message: "no PEM public key (-----BEGIN PUBLIC KEY-----) could be read: \(LibCrypto.takeErrors())"
            )
        }
        self.key = loaded
        self.kind = kind
        try checkType()
    }

    deinit {
        EVP_PKEY_free(key)
    }

    private func checkType() throws(TokenVerifierError) {
        let type = EVP_PKEY_get_base_id(key)
        switch kind {
        case .rsa:
            guard type == EVP_PKEY_RSA else {
                throw TokenVerifierError(code: .wrongKeyType, message: "RS256 needs an RSA public key, the PEM holds \(Self.typeName(type))")
            }
            let bits = EVP_PKEY_get_bits(key)
            guard bits >= Self.minimumRSABits else {
                throw TokenVerifierError(code: .weakKey, message: "RS256 needs an RSA key of at least \(Self.minimumRSABits) bits, this one has \(bits)")
            }
        case .p256:
            guard type == EVP_PKEY_EC else {
                throw TokenVerifierError(code: .wrongKeyType, message: "ES256 needs an EC public key on P-256, the PEM holds \(Self.typeName(type))")
            }
            let curve = groupName()
            guard curve == "prime256v1" || curve == "P-256" else {
                throw TokenVerifierError(code: .wrongKeyType, message: "ES256 needs an EC key on P-256 (prime256v1), this one is on \(curve ?? "an unnamed curve")")
            }
        }
    }

    private func groupName() -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &buffer, buffer.count, &length) == 1 else {
            LibCrypto.clearErrors()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func typeName(_ type: Int32) -> String {
        switch type {
        case EVP_PKEY_RSA: "an RSA key"
        case EVP_PKEY_RSA_PSS: "an RSA-PSS key"
        case EVP_PKEY_EC: "an EC key"
        case EVP_PKEY_ED25519: "an Ed25519 key"
        default: "a key of another type (\(type))"
        }
    }

    /// Whether `signature` (DER for EC) signs `message` with SHA-256 under this key.
    func isValid(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard !signature.isEmpty else { return false }
        defer { LibCrypto.clearErrors() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        guard EVP_DigestVerifyInit(context, &keyContext, EVP_sha256(), nil, key) == 1 else { return false }
        if kind == .rsa {
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PADDING) == 1 else { return false }
        }
        let result = signature.withUnsafeBufferPointer { signature in
            message.withUnsafeBufferPointer { message in
                EVP_DigestVerify(context, signature.baseAddress, signature.count, message.baseAddress, message.count)
            }
        }
        return result == 1
    }
}
