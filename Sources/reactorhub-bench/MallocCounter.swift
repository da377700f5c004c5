import Glibc

/// The counters that bench/malloc-count.so keeps in a shared file inside the server:
/// read with `pread`, so reading them costs the server nothing.
struct MallocCounter {
    struct Counts {
        var allocations: UInt64
        var reallocations: UInt64
        var frees: UInt64
        var bytes: UInt64

        static func - (lhs: Counts, rhs: Counts) -> Counts {
            Counts(allocations: lhs.allocations &- rhs.allocations, reallocations: lhs.reallocations &- rhs.reallocations,
                   frees: lhs.frees &- rhs.frees, bytes: lhs.bytes &- rhs.bytes)
        }
    }

    let path: String

    /// The counters now, or nil when the file cannot be read.
    func read() -> Counts? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let size = MemoryLayout.size(ofValue: words)
        let got = withUnsafeMutableBytes(of: &words) { pread(fd, $0.baseAddress, size, 0) }
        guard got == size else { return nil }
        return Counts(allocations: UInt64(littleEndian: words.0), reallocations: UInt64(littleEndian: words.1),
                      frees: UInt64(littleEndian: words.2), bytes: UInt64(littleEndian: words.3))
    }
}
