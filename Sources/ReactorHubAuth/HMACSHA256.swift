internal import CCrypto
internal import ReactorHubLocking

/// HMAC-SHA256 with libcrypto's one-shot `HMAC`, for minting HS256 tokens (`reactorhub token`)
/// and signing webhooks (the daemon hands it to `ReactorHubWebhooks`).
package enum HMACSHA256 {
    /// The length of a MAC, in bytes.
    package static let length = 32

    /// The MAC of `message` under `key`; nil only when libcrypto fails (the key is too long
    /// for its `int` length, or it cannot allocate), its errors left queued for the caller.
    package static func mac(_ message: [UInt8], key: [UInt8]) -> [UInt8]? {
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

    /// Whether two MACs of `length` bytes are equal, compared in constant time.
    static func equal(_ signature: [UInt8], _ expected: [UInt8]) -> Bool {
        let difference = signature.withUnsafeBytes { signature in
            expected.withUnsafeBytes { expected in
                CRYPTO_memcmp(signature.baseAddress, expected.baseAddress, length)
            }
        }
        return difference == 0
    }
}

/// HMAC-SHA256 under one key through libcrypto's `EVP_MAC`, for verifying many tokens.
///
/// OpenSSL 3's one-shot `HMAC()` looks the algorithm up by name and derives the keyed pads
/// on every call, which costs several times the hashing of a token. Here the `HMAC` method
/// is fetched once and each context is keyed once, then started again for every message
/// (`EVP_MAC_init` with no key keeps the key). A context serves one thread at a time: a
/// check takes an idle one (or makes one) and gives it back, and up to `keptContexts` are
/// kept. `@unchecked Sendable`: the contexts are only reached through the lock or by the
/// one check holding them; the method is never modified after `init`.
final class HMACKey: @unchecked Sendable {
    /// Idle contexts kept for reuse; more checks at once than this make and free their own.
    static let keptContexts = 8

    private let method: OpaquePointer
    private let secret: [UInt8]
    private let idle = Locked<[OpaquePointer]>([])

    /// Fetches libcrypto's HMAC and keys a first context with `secret`; nil when
    /// libcrypto cannot, its errors left queued for the caller.
    init?(secret: [UInt8]) {
        guard let method = EVP_MAC_fetch(nil, "HMAC", nil) else { return nil }
        self.method = method
        self.secret = secret
        guard let first = makeContext() else { return nil }
        idle.withLock { $0.append(first) }
    }

    deinit {
        for context in idle.withLock({ $0 }) {
            EVP_MAC_CTX_free(context)
        }
        EVP_MAC_free(method)
    }

    /// The MAC of `message`; nil only when libcrypto fails.
    func mac(_ message: [UInt8]) -> [UInt8]? {
        guard let context = idle.withLock({ $0.popLast() }) ?? makeContext() else { return nil }
        var output = [UInt8](repeating: 0, count: HMACSHA256.length)
        var written = 0
        let done = message.withUnsafeBufferPointer { message in
            output.withUnsafeMutableBufferPointer { output in
                EVP_MAC_init(context, nil, 0, nil) == 1
                    && EVP_MAC_update(context, message.baseAddress, message.count) == 1
                    && EVP_MAC_final(context, output.baseAddress, &written, output.count) == 1
            }
        }
        guard done, written == HMACSHA256.length else {
            EVP_MAC_CTX_free(context)
            return nil
        }
        let freed = idle.withLock { contexts -> OpaquePointer? in
            guard contexts.count < Self.keptContexts else { return context }
            contexts.append(context)
            return nil
        }
        if let freed { EVP_MAC_CTX_free(freed) }
        return output
    }

    /// Whether `signature` is the MAC of `message`, compared in constant time.
    func isValid(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard signature.count == HMACSHA256.length else { return false }
        guard let expected = mac(message) else {
            LibCrypto.clearErrors()
            return false
        }
        return HMACSHA256.equal(signature, expected)
    }

    /// A new context keyed with the secret and SHA-256.
    private func makeContext() -> OpaquePointer? {
        guard let context = EVP_MAC_CTX_new(method) else { return nil }
        let keyed = "digest".withCString { name in
            "SHA256".withCString { digest in
                let parameters = [
                    OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return secret.withUnsafeBufferPointer { key in
                    parameters.withUnsafeBufferPointer { EVP_MAC_init(context, key.baseAddress, key.count, $0.baseAddress) }
                }
            }
        }
        guard keyed == 1 else {
            EVP_MAC_CTX_free(context)
            return nil
        }
        return context
    }
}
