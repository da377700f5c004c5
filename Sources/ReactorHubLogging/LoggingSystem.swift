import ReactorHubLocking

/// The process-wide logging configuration: the handler every logger writes to and the
/// level new loggers start with.
public enum LoggingSystem {
    private struct Settings: Sendable {
        var handler: any LogHandler = StandardErrorLogHandler()
        var level: Logger.Level = .info
    }

    private static let settings = Locked(Settings())

    /// Installs the handler that receives every record from now on, and the default level
    /// of loggers created afterwards.
    public static func bootstrap(_ handler: any LogHandler, level: Logger.Level) {
        settings.withLock {
            $0.handler = handler
            $0.level = level
        }
    }

    /// The level given to loggers created from now on.
    public static var defaultLevel: Logger.Level {
        settings.withLock { $0.level }
    }

    /// Hands `record` to the installed handler.
    @usableFromInline
    static func emit(_ record: LogRecord) {
        let handler = settings.withLock { $0.handler }
        handler.write(record)
    }
}
