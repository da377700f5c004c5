import Glibc

/// CLOCK_MONOTONIC in nanoseconds: the clock every timestamp of the benchmark uses
/// (senders put it in the payload, receivers compare against it; one machine, one clock).
@inline(__always)
func monotonicNanos() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}

/// CPU seconds (user + system) this process has used so far.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// The machine's CPU time so far, from /proc/stat: busy and total, in seconds (all CPUs).
func machineCPUSeconds() -> (busy: Double, total: Double) {
    guard let text = readSmallFile("/proc/stat"),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return (0, 0) }
    let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
    guard fields.count >= 8 else { return (0, 0) }
    // user nice system idle iowait irq softirq steal (guest time is inside user)
    let total = fields[0..<8].reduce(0, +)
    let idle = fields[3] + fields[4]
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    return ((total - idle) / ticks, total / ticks)
}

/// Reads a whole small file (procfs), or nil.
func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Another process, watched through procfs: its CPU time and its resident memory.
struct WatchedProcess {
    let pid: Int32

    /// utime + stime of the whole process (all threads), in seconds.
    func cpuSeconds() -> Double? {
        guard let text = readSmallFile("/proc/\(pid)/stat"),
              let close = text.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3; utime is 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) / ticks
    }

    /// VmRSS in KiB.
    func residentKiB() -> Int? { statusField("VmRSS:") }

    /// VmHWM (peak resident) in KiB.
    func peakResidentKiB() -> Int? { statusField("VmHWM:") }

    /// Number of threads.
    func threads() -> Int? { statusField("Threads:") }

    private func statusField(_ name: String) -> Int? {
        guard let text = readSmallFile("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let digits = line.dropFirst(name.count).filter { $0.isNumber }
            return Int(String(digits))
        }
        return nil
    }
}

/// Raises this process's open-file limit to its hard limit; returns the new soft limit.
@discardableResult
func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return Int(limit.rlim_cur)
}
