#if canImport(Glibc)
import Glibc
#endif

/// glibc's `sched_getaffinity(2)` wrapper: Swift's Glibc module leaves it out (it is
/// declared under `_GNU_SOURCE` only).
@_silgen_name("sched_getaffinity")
private func schedGetAffinity(_ pid: pid_t, _ size: Int, _ mask: UnsafeMutableRawPointer) -> Int32

/// The CPU cores this process may run on.
enum CPUCores {
    /// The cores in the process's affinity mask (what `taskset` or a container's cpuset
    /// allows), at least 1; the online cores when the mask cannot be read.
    static var usable: Int {
        // 1,024 cores' bits, as glibc's `cpu_set_t`.
        var mask = [UInt64](repeating: 0, count: 16)
        let read = mask.withUnsafeMutableBytes { schedGetAffinity(0, $0.count, $0.baseAddress!) }
        guard read == 0 else { return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
        return max(1, mask.reduce(0) { $0 + $1.nonzeroBitCount })
    }
}
