import Dispatch
import Foundation
import ReactorHubLocking

/// Waits for one of `signals` (their default action is turned off while it watches).
///
/// `@unchecked Sendable`: the sources are set up in `init` and only cancelled afterwards;
/// Dispatch sources are thread-safe.
final class SignalWatch: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let latch = Latch()

    init(signals: [Int32]) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            sources.append(source)
        }
        self.sources = sources
        let latch = latch
        for source in sources {
            source.setEventHandler { latch.open() }
            source.resume()
        }
    }

    /// Returns once a signal came (or `cancel()` was called).
    func wait() async {
        await latch.wait()
    }

    func cancel() {
        sources.forEach { $0.cancel() }
        latch.open()
    }
}
