import ReactorHubLibWebSockets
import ReactorHubLocking
import ReactorHubLogging
import Synchronization

/// Routes libwebsockets' own log lines into the logger of the server that installed it
/// last: lws' errors at `warning` (they concern one peer, rarely the server, but they say
/// why a TLS handshake or a client connection failed), its warnings at `debug`. lws logs through one process-wide C callback, which has no
/// context pointer, hence the one logger kept here.
enum LWSLogBridge {
    fileprivate static let logger = Locked<Logger?>(nil)
    fileprivate static let failedAccepts = Atomic<Int>(0)

    /// Accepts that failed (lws logs `accept: errno N` and retries at once).
    static var acceptFailures: Int { failedAccepts.load(ordering: .relaxed) }

    static func install(logger: Logger) {
        var logger = logger
        logger[metadataKey: "source"] = "lws"
        let first = Self.logger.withLock { current in
            defer { current = logger }
            return current == nil
        }
        if first {
            LWS.setLogLevel([.error, .warning], emit: lwsLogEmit)
        }
    }
}

private func lwsLogEmit(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line, let logger = LWSLogBridge.logger.withLock({ $0 }) else { return }
    var text = String(cString: line)
    while text.last == "\n" { text.removeLast() }
    if text.contains("accept: errno") {
        // Counted and logged by the service loop, once a second at most.
        LWSLogBridge.failedAccepts.add(1, ordering: .relaxed)
        return
    }
    if level & LWSLogLevel.error.rawValue != 0 {
        logger.warning(text)
    } else {
        logger.debug(text)
    }
}
