internal import CCrypto

/// Comparisons whose time does not depend on where two secrets differ (libcrypto's
/// `CRYPTO_memcmp`): for bearer tokens such as `admin.token`.
public enum ConstantTime {
    /// Whether `a` and `b` are equal; the time taken depends only on their lengths.
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        if a.isEmpty { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, a.count) == 0
            }
        }
    }
}
