#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Observes SIGINT and SIGTERM without a signal handler running Swift code: both signals
/// are ignored at the process level and observed through Dispatch sources.
enum SignalWaiter {
    /// From now on SIGINT and SIGTERM no longer end the process: each one received is
    /// the name it yields. Called before the daemon says it is listening, so that a
    /// signal sent as soon as the line is read is not lost nor fatal.
    static func observeTermination() -> AsyncStream<String> {
        let (names, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(1))
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "reactorhub.signals")
        var sources: [any DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { @Sendable in continuation.yield(name) }
            source.resume()
            sources.append(source)
        }
        // The sources live for the rest of the process.
        Retained.sources = sources
        return names
    }

    private enum Retained {
        nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
    }
}
