#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Locking

/// Waits for SIGINT or SIGTERM without a signal handler running Swift code: both signals
/// are ignored at the process level and observed through Dispatch sources.
enum SignalWaiter {
    /// Returns the name of the first termination signal received.
    static func waitForTermination() async -> String {
        signal(SIGPIPE, SIG_IGN)
        let queue = DispatchQueue(label: "reactorhub.signals")
        let resumed = Locked(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            var sources: [any DispatchSourceSignal] = []
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { @Sendable in
                    let first = resumed.withLock { done in
                        defer { done = true }
                        return !done
                    }
                    if first { continuation.resume(returning: name) }
                }
                source.resume()
                sources.append(source)
            }
            // The sources live for the rest of the process.
            Retained.sources = sources
        }
    }

    private enum Retained {
        nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
    }
}
