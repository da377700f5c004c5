#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Raises the process's open-file limit so that `maxConnections` sockets can be open.
enum ResourceLimits {
    static func raiseOpenFileLimit(toAtLeast wanted: Int, logger: Logger) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let target = rlim_t(wanted)
        guard limit.rlim_cur < target else { return }
        let previous = limit.rlim_cur
        limit.rlim_cur = min(target, limit.rlim_max)
        if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 || limit.rlim_cur < target {
            logger.warning(
                "open-file limit is below what maxConnections needs",
                metadata: ["limit": String(limit.rlim_cur), "wanted": String(wanted), "was": String(previous)]
            )
        }
    }
}
