import ReactorHubLocking
import ReactorHubLogging
import Reactor
/// Log records captured for the whole test process, so that tests can check what was logged
/// under a logger label of their own.
enum CapturedLogs {
    private final class Handler: LogHandler {
        let records = Locked<[LogRecord]>([])

        func write(_ record: LogRecord) {
            records.withLock { $0.append(record) }
        }
    }

    private static let handler: Handler = {
        let handler = Handler()
        LoggingSystem.bootstrap(handler, level: .info)
        return handler
    }()

    /// A logger whose records `records(label:)` returns.
    static func logger(label: String) -> Logger {
        _ = handler
        var logger = Logger(label: label)
        logger.logLevel = .debug
        return logger
    }

    static func records(label: String) -> [LogRecord] {
        handler.records.withLock { $0.filter { $0.label == label } }
    }
}
