internal import CCrypto

/// HMAC-SHA256 with libcrypto's one-shot `HMAC`, for HS256.
enum HMACSHA256 {
    /// The length of a MAC, in bytes.
    static let length = 32

    /// The MAC of `message` under `key`; nil only when libcrypto fails (the key is too long
    /// for its `int` length, or it cannot allocate), its errors left queued for the caller.
    static func mac(_ message: [UInt8], key: [UInt8]) -> [UInt8]? {
        guard key.count <= Int(Int32.max) else { return nil }
        var output = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        let result = key.withUnsafeBytes { key in
            message.withUnsafeBufferPointer { message in
                output.withUnsafeMutableBufferPointer { output in
                    HMAC(EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, output.baseAddress, &written)
                }
            }
        }
        guard result != nil, written == UInt32(length) else { return nil }
        return output
    }

    /// Whether `signature` is the MAC of `message` under `key`, compared in constant time
    /// (`CRYPTO_memcmp`), so the time taken does not tell how many leading bytes matched.
    static func isValid(_ signature: [UInt8], of message: [UInt8], key: [UInt8]) -> Bool {
        guard signature.count == length else { return false }
        guard let expected = mac(message, key: key) else {
            LibCrypto.clearErrors()
            return false
        }
        let difference = signature.withUnsafeBytes { signature in
            expected.withUnsafeBytes { expected in
                CRYPTO_memcmp(signature.baseAddress, expected.baseAddress, length)
            }
        }
        return difference == 0
    }
}
