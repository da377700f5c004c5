internal import CSignalPipe
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import ReactorHubLocking

/// Waits for SIGINT or SIGTERM, as the daemon's `SignalWaiter` does: a C handler
/// (`CSignalPipe`) writes each signal's number to a pipe, and a Dispatch source reads it.
///
/// The handler is in place when `init` returns, and a byte written before the read source
/// is armed waits in the pipe. (Ignoring the signals and watching them with Dispatch
/// signal sources lost a signal that came before libdispatch had armed its source: a
/// SIGINT right after `watch` printed its first state left it running.)
///
/// `@unchecked Sendable`: the source is set up in `init` and only cancelled afterwards;
/// Dispatch sources are thread-safe.
final class SignalWatch: @unchecked Sendable {
    private let source: (any DispatchSourceRead)?
    private let latch = Latch()

    /// Installs the handler; call it once per process.
    init() {
        let pipe = rh_signal_pipe_install()
        guard pipe >= 0 else {
            // Without the handler the signals keep their default action: they end the
            // process at once (without the closing handshake), but are never ignored.
            Output.standardError("reactorhub-cli: cannot watch SIGINT and SIGTERM (\(String(cString: strerror(errno))))")
            source = nil
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: pipe, queue: .global())
        let latch = latch
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 16)
            while read(pipe, &bytes, bytes.count) > 0 {}
            latch.open()
        }
        source.resume()
        self.source = source
    }

    /// Returns once a signal came (or `cancel()` was called).
    func wait() async {
        await latch.wait()
    }

    func cancel() {
        source?.cancel()
        latch.open()
    }
}
