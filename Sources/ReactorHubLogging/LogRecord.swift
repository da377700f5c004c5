/// One line handed to a `LogHandler`.
public struct LogRecord: Sendable {
    /// How severe the line is.
    public var level: Logger.Level
    /// The label of the logger that emitted it.
    public var label: String
    /// The human-readable message, without metadata.
    public var message: String
    /// Structured context, rendered by the handler.
    public var metadata: Logger.Metadata

    /// Creates a record; loggers build these, handlers consume them.
    public init(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {
        self.level = level
        self.label = label
        self.message = message
        self.metadata = metadata
    }
}

/// Where log lines go. The daemon installs one through `LoggingSystem.bootstrap`.
public protocol LogHandler: Sendable {
    /// Writes one record; called from any thread.
    func write(_ record: LogRecord)
}
