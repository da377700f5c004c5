internal import CLibWebSockets
import Logging
import Synchronization

/// Routes libwebsockets' own log lines into the project's logger: its errors at
/// `warning` (they concern one peer, rarely the server), its warnings at `debug`.
enum LWSLogBridge {
    private static let installed = Atomic<Bool>(false)

    static func install() {
        guard !installed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        lws_set_log_level(rh_lws_log_err() | rh_lws_log_warn(), lwsLogEmit)
    }
}

private func lwsLogEmit(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    var text = String(cString: line)
    while text.last == "\n" { text.removeLast() }
    let logger = Logger(label: "lws")
    if level & rh_lws_log_err() != 0 {
        logger.warning(text)
    } else {
        logger.debug(text)
    }
}
