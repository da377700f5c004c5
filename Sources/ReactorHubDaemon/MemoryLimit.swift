import Foundation

/// The default of `limits.maxMemoryBytes`: half of what the process may use, the cgroup's
/// memory limit when it has one (a container, a systemd unit with `MemoryMax=`), else
/// physical memory.
enum MemoryLimit {
    static var halfOfAvailable: Int {
        (cgroupLimit ?? physicalMemory) / 2
    }

    /// `memory.max` of the process's cgroup (v2), or `memory.limit_in_bytes` (v1); nil
    /// when unlimited or unknown.
    static var cgroupLimit: Int? {
        let candidates = [cgroupV2Path.map { "/sys/fs/cgroup\($0)/memory.max" }, "/sys/fs/cgroup/memory.max",
                          "/sys/fs/cgroup/memory/memory.limit_in_bytes"].compactMap { $0 }
        for path in candidates {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            // v1 says "unlimited" with a page-rounded 2^63.
            if let bytes = Int(value), bytes > 0, bytes < Int.max / 2 { return bytes }
            return nil
        }
        return nil
    }

    /// The process's cgroup v2 path (`0::/system.slice/x.service`).
    private static var cgroupV2Path: String? {
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("0::") }.map { String($0.dropFirst(3)) }
    }

    static var physicalMemory: Int {
        Int(clamping: ProcessInfo.processInfo.physicalMemory)
    }
}
