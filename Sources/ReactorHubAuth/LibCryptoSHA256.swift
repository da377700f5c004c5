internal import CCrypto

/// SHA-256 on libcrypto, which uses the CPU's SHA instructions where it has them: the
/// daemon hands it to the hub for the state checksums (PROTOCOL.md "Checksums"). It lives
/// here because this module owns libcrypto (each C library has one importer); the engine
/// only sees a function.
package enum LibCryptoSHA256 {
    /// The algorithm, fetched once: OpenSSL 3 looks `EVP_sha256()` up on every use.
    ///
    /// `nonisolated(unsafe)`: an `EVP_MD` is immutable once fetched and libcrypto allows
    /// its use from any thread at once; it is never freed.
    nonisolated(unsafe) private static let algorithm: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    /// The 32-byte digest of `bytes`.
    package static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 32)
        var written: UInt32 = 0
        let ok = output.withUnsafeMutableBufferPointer { output in
            EVP_Digest(bytes.baseAddress, bytes.count, output.baseAddress, &written, algorithm ?? EVP_sha256(), nil)
        }
        // Only an allocation failure inside libcrypto fails a digest; nothing can answer it.
        precondition(ok == 1 && written == 32, "libcrypto SHA-256 failed: \(LibCrypto.takeErrors())")
        return output
    }
}
