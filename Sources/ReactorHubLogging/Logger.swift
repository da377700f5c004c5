/// A structured logger in the spirit of swift-log: a label, a minimum level and metadata,
/// with the destination chosen once by the executable through `LoggingSystem`.
///
/// Library code logs at `info` or below and never decides where lines go; the daemon
/// bootstraps a handler (standard error by default) and the level from its configuration.
public struct Logger: Sendable {
    /// Structured context attached to a log line, rendered as `key=value` pairs.
    public typealias Metadata = [String: String]

    /// The subsystem that emits the line, e.g. `transport` or `hub`.
    public let label: String
    /// Lines below this level are discarded before their message is built.
    public var logLevel: Level
    /// Metadata attached to every line this logger emits.
    public var metadata: Metadata

    /// Creates a logger whose level comes from `LoggingSystem.defaultLevel`.
    public init(label: String, metadata: Metadata = [:]) {
        self.label = label
        self.logLevel = LoggingSystem.defaultLevel
        self.metadata = metadata
    }

    /// Reads or sets one metadata value attached to every line of this logger.
    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Whether a line at `level` would be emitted; lets callers skip building costly metadata.
    @inlinable
    public func isEnabled(_ level: Level) -> Bool {
        level >= logLevel
    }

    /// Emits `message` at `level` with this logger's metadata merged with `metadata`.
    @inlinable
    public func log(
        level: Level,
        _ message: @autoclosure () -> String,
        metadata: @autoclosure () -> Metadata? = nil
    ) {
        guard isEnabled(level) else { return }
        var merged = self.metadata
        if let extra = metadata() {
            merged.merge(extra) { _, new in new }
        }
        LoggingSystem.emit(LogRecord(level: level, label: label, message: message(), metadata: merged))
    }

    /// Emits at `trace`: very detailed, per-message diagnostics.
    @inlinable
    public func trace(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .trace, message(), metadata: metadata())
    }

    /// Emits at `debug`: diagnostics useful when investigating one session.
    @inlinable
    public func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .debug, message(), metadata: metadata())
    }

    /// Emits at `info`: lifecycle events an operator wants to see.
    @inlinable
    public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .info, message(), metadata: metadata())
    }

    /// Emits at `notice`: a normal but significant condition.
    @inlinable
    public func notice(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .notice, message(), metadata: metadata())
    }

    /// Emits at `warning`: something unexpected that the program recovered from.
    @inlinable
    public func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .warning, message(), metadata: metadata())
    }

    /// Emits at `error`: an operation failed.
    @inlinable
    public func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .error, message(), metadata: metadata())
    }

    /// Emits at `critical`: the process cannot go on as configured.
    @inlinable
    public func critical(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata? = nil) {
        log(level: .critical, message(), metadata: metadata())
    }
}
