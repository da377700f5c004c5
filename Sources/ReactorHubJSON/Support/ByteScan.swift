/// Skips runs of bytes that need no attention in JSON strings, eight at a time.
///
/// SWAR ("SIMD within a register"): a 64-bit word holds eight bytes, and the classic
/// bit tricks tell whether any of them is a quote, a backslash, a control character
/// (below 0x20) or, optionally, a non-ASCII byte. Strings are mostly plain text, so the
/// parser and the writer look at bytes one by one only near the few that matter.
enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    private static let quotes: UInt64 = 0x2222_2222_2222_2222
    private static let backslashes: UInt64 = 0x5C5C_5C5C_5C5C_5C5C
    private static let spaces: UInt64 = 0x2020_2020_2020_2020

    /// Whether any byte of `word` is zero (exact for the word as a whole).
    private static func hasZeroByte(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highBits != 0
    }

    /// Whether any byte of `word` is `"`, `\`, below 0x20 or, if asked, at least 0x80.
    static func needsAttention(_ word: UInt64, nonASCII: Bool) -> Bool {
        let control = (word &- spaces) & ~word & highBits != 0
        let special = control || hasZeroByte(word ^ quotes) || hasZeroByte(word ^ backslashes)
        return special || (nonASCII && word & highBits != 0)
    }

    /// Whether the eight bytes at `pointer` need no attention (see `needsAttention`).
    static func isPlainWord(at pointer: UnsafePointer<UInt8>, nonASCII: Bool) -> Bool {
        let word = UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
        return !needsAttention(word, nonASCII: nonASCII)
    }
}
