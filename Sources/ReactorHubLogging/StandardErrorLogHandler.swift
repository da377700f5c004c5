#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ReactorHubLocking

/// Writes one line per record to standard error:
/// `2026-11-30T04:22:37.123Z info hub: joined reactor=counter/lobby session=c7`.
///
/// Metadata keys are sorted so that lines are stable and easy to grep; values containing
/// spaces or quotes are quoted.
public struct StandardErrorLogHandler: LogHandler {
    /// Keeps lines whole when threads log at once. A stored property, made before the
    /// handler is installed (`LoggingSystem.bootstrap` publishes it under its own lock),
    /// not a lazily made static: two threads logging the process's first lines at once
    /// made ThreadSanitizer report the static's one-time initialization as a race. A plain
    /// `Lock`, not a `Locked(())`: ThreadSanitizer reported the exclusivity checks of the
    /// zero-sized value of two threads writing at once (a service thread's refusal and a
    /// shutdown's warning) as a race on the object's address, though both held the lock.
    private let lock = Lock()

    /// Creates the handler.
    public init() {}

    public func write(_ record: LogRecord) {
        var line = Self.timestamp()
        line += " "
        line += record.level.rawValue
        line += " "
        line += record.label
        line += ": "
        line += record.message
        for key in record.metadata.keys.sorted() {
            line += " "
            line += key
            line += "="
            line += Self.quoted(record.metadata[key] ?? "")
        }
        line += "\n"
        lock.withLock {
            var bytes = Array(line.utf8)
            bytes.withUnsafeMutableBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }

    static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\n" }
        guard needsQuotes else { return value }
        var out = "\""
        for ch in value {
            switch ch {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out.append(ch)
            }
        }
        out += "\""
        return out
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let millis = Int32(now.tv_nsec / 1_000_000)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(millis, 3))Z"
    }
}
