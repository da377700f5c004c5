internal import CCrypto

/// The JWS form of an ES256 signature (RFC 7518 §3.4: R and S, 32 bytes each, big-endian)
/// turned into the DER `ECDSA-Sig-Value` that `EVP_DigestVerify` takes.
enum ECDSASignature {
    /// The length of an ES256 signature in a JWS.
    static let rawLength = 64

    /// The DER form of `raw`, or nil when it is not 64 bytes (or libcrypto fails).
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == rawLength, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let half = Int32(rawLength / 2)
        let (r, s) = raw.withUnsafeBufferPointer { bytes in
            (BN_bin2bn(bytes.baseAddress, half, nil), BN_bin2bn(bytes.baseAddress! + Int(half), half, nil))
        }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            // ECDSA_SIG_set0 takes ownership only when it succeeds.
            BN_free(r)
            BN_free(s)
            LibCrypto.clearErrors()
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
