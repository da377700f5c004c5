#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The standard process metrics of Prometheus clients, read from `/proc/self` at scrape.
public enum ProcessMetrics {
    /// Resident memory in bytes.
    public static var residentMemoryBytes: Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// User and system CPU time, in seconds.
    public static var cpuSeconds: Double {
        var usage = rusage()
        guard getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage) == 0 else { return 0 }
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Open file descriptors: the entries of `/proc/self/fd`, counted with `readdir` (one
    /// per connection, so thousands: Foundation's listing builds a string for each).
    public static var openFileDescriptors: Int {
        guard let folder = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(folder) }
        var count = 0
        while let entry = readdir(folder) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        return count - 1  // the descriptor of the listing itself
    }

    /// The open-file limit (soft).
    public static var maxFileDescriptors: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        return Int(limit.rlim_cur)
    }

    /// When the process started, in seconds since 1970: its start in clock ticks after boot
    /// (`/proc/self/stat`, field 22) placed on the wall clock through `CLOCK_BOOTTIME`, as
    /// Prometheus' own clients do. (Not the time of the first scrape: a `static let` is
    /// initialized lazily, on first use.)
    public static let startTime: Double = {
        let now = Date().timeIntervalSince1970
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let nameEnd = stat.lastIndex(of: ")")
        else { return now }
        // After the command name: field 3 (state) first, so field 22 (starttime) is the 20th.
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        var boot = timespec()
        guard fields.count > 19, let ticks = Double(fields[19]), clock_gettime(CLOCK_BOOTTIME, &boot) == 0 else { return now }
        let uptime = Double(boot.tv_sec) + Double(boot.tv_nsec) / 1_000_000_000
        return now - uptime + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }()
}
