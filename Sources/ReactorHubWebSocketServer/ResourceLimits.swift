#if canImport(Glibc)
import Glibc
#endif
import ReactorHubLogging

/// Raises the process's open-file limit so that `maxConnections` sockets can be open.
enum ResourceLimits {
    /// The open-file limit (soft), raised once to the hard limit: connections are sockets.
    static let openFileLimit: Int = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return Int(clamping: limit.rlim_cur)
    }()

    /// Warns when the open-file limit is below what `maxConnections` needs.
    static func checkOpenFileLimit(for maxConnections: Int, reserve: Int, logger: Logger) {
        let wanted = maxConnections + reserve
        if openFileLimit < wanted {
            logger.warning(
                "open-file limit is below what maxConnections needs",
                metadata: ["limit": String(openFileLimit), "wanted": String(wanted)]
            )
        }
    }
}
