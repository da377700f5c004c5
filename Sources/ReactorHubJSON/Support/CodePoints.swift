#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// String equality as JSON has it: the same Unicode scalars (code points), compared as
/// UTF-8 bytes.
///
/// `String ==` also equates canonically equivalent spellings (`é` and `e` + U+0301, the
/// Kelvin sign and `K`, combining marks in either order). JSON does not: RFC 8259 compares
/// member names code unit by code unit, RFC 6902 `test` compares strings by code points,
/// and every other implementation (the browser's, Python's) keeps such spellings apart. A
/// document model that merged them would drop members, and a differ that equated them would
/// send no patch for a change that clients can see. Names and string values of the JSON
/// module compare with this, never with `==`.
enum CodePoints {
    /// Whether `left` and `right` hold the same scalars.
    ///
    /// Two strings with the same representation (a short string stored inline, or one
    /// shared buffer) are equal at once, as `String ==` finds them too, and strings of
    /// different lengths are not; the rest compare their bytes with `memcmp`, out of line.
    /// Diffs of copy-on-write states cost what they did with `String ==`; diffs of two
    /// documents parsed apart, whose long strings are all separate buffers, about twice as
    /// much (json-bench: 1 MiB, 0.49 ms before, 1.2 ms).
    static func equal(_ left: String, _ right: String) -> Bool {
        if MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size,
           unsafeBitCast(left, to: (UInt64, UInt64).self) == unsafeBitCast(right, to: (UInt64, UInt64).self) {
            return true
        }
        let count = left.utf8.count
        guard count == right.utf8.count else { return false }
        return sameBytes(left, right, count: count)
    }

    /// `memcmp` on the contiguous UTF-8 of both (native strings always have it).
    @inline(never)
    private static func sameBytes(_ left: String, _ right: String, count: Int) -> Bool {
        guard count > 0 else { return true }
        let leftBytes = left.utf8
        let rightBytes = right.utf8
        let contiguous = leftBytes.withContiguousStorageIfAvailable { mine in
            rightBytes.withContiguousStorageIfAvailable { theirs in memcmp(mine.baseAddress!, theirs.baseAddress!, count) == 0 }
        }
        if case let result?? = contiguous { return result }
        return leftBytes.elementsEqual(rightBytes)
    }

    /// Feeds the scalars of `text` to `hasher`, consistently with `equal`.
    static func hash(_ text: String, into hasher: inout Hasher) {
        let bytes = text.utf8
        hasher.combine(bytes.count)
        if bytes.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}

/// A member name as a dictionary key, equal to another only with the same scalars.
struct MemberName: Hashable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (left: MemberName, right: MemberName) -> Bool {
        CodePoints.equal(left.text, right.text)
    }

    func hash(into hasher: inout Hasher) {
        CodePoints.hash(text, into: &hasher)
    }
}
