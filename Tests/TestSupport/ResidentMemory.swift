import Foundation

/// The resident set size of a process, read from /proc.
public enum ResidentMemory {
    /// This process's resident memory in bytes.
    public static func current() -> Int {
        of(pid: getpid()) ?? 0
    }

    /// Another process's resident memory in bytes, or nil if it is gone.
    public static func of(pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return digits * 1024
        }
        return nil
    }
}
