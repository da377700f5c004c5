import ReactorHubLibWebSockets
import ReactorHubLocking
import ReactorHubLogging

/// Routes libwebsockets' own log lines into the client's logger: its errors at `warning`
/// (they say why a TLS handshake failed: "self-signed certificate", where the connection
/// error itself only says "connect SSL err 1"), its warnings at `debug`. lws logs through
/// one process-wide C callback without a context pointer, hence the logger kept here (the
/// last client started wins, as for the server's bridge).
enum ClientLogBridge {
    fileprivate static let logger = Locked<Logger?>(nil)

    static func install(logger: Logger) {
        var logger = logger
        logger[metadataKey: "source"] = "lws"
        Self.logger.withLock { $0 = logger }
        LWS.setLogLevel([.error, .warning], emit: clientLogEmit)
    }
}

private func clientLogEmit(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line, let logger = ClientLogBridge.logger.withLock({ $0 }) else { return }
    let text = String(cString: line).trimmingSuffix("\n")
    if level & LWSLogLevel.error.rawValue != 0 {
        logger.warning("\(text)")
    } else {
        logger.debug("\(text)")
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: Character) -> String {
        var text = self
        while text.last == suffix { text.removeLast() }
        return text
    }
}
