internal import CSignalPipe
#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Observes SIGINT and SIGTERM without a signal handler running Swift code: a C handler
/// (`CSignalPipe`) writes each signal's number to a pipe, and a Dispatch source reads it.
///
/// The handler is in place as soon as `observeTermination` returns, and a byte written
/// before the read source is armed waits in the pipe. (Ignoring the signals and watching
/// them with Dispatch signal sources lost a signal that came before libdispatch had armed
/// its source: on a loaded machine, a SIGTERM sent right after the daemon said it was
/// listening left it running.)
enum SignalWaiter {
    /// From now on SIGINT and SIGTERM no longer end the process: each one received is
    /// the name it yields. Called before the daemon says it is listening, so that a
    /// signal sent as soon as the line is read is not lost nor fatal.
    static func observeTermination() -> AsyncStream<String> {
        let (names, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(1))
        signal(SIGPIPE, SIG_IGN)
        let pipe = rh_signal_pipe_install()
        guard pipe >= 0 else {
            // Without the handler the signals keep their default action (they end the
            // process at once): not graceful, but never ignored.
            Daemon.printError("cannot watch SIGINT and SIGTERM (\(String(cString: strerror(errno)))); they will stop the daemon without draining")
            return names
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: pipe, queue: DispatchQueue(label: "reactorhub.signals"))
        source.setEventHandler { @Sendable in
            var bytes = [UInt8](repeating: 0, count: 16)
            while true {
                let count = read(pipe, &bytes, bytes.count)
                guard count > 0 else { break }
                for number in bytes.prefix(count) {
                    continuation.yield(Int32(number) == SIGINT ? "SIGINT" : "SIGTERM")
                }
            }
        }
        source.resume()
        // The source lives for the rest of the process.
        Retained.source = source
        return names
    }

    private enum Retained {
        nonisolated(unsafe) static var source: (any DispatchSourceRead)?
    }
}
