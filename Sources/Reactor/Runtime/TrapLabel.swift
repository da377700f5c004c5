internal import CTrapReport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A name a trap report may print from a signal handler: a C string, made once. The
/// report reads it only while the serial context runs an item of the runtime that holds
/// it, so it is freed with its last holder.
///
/// Safety of `@unchecked Sendable`: the bytes are written once in `init`, only read
/// afterwards, and freed in `deinit`.
package final class TrapLabel: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<CChar>

    /// Copies `text` into C storage.
    package init(_ text: String) {
        pointer = strdup(text)!
    }

    deinit {
        free(pointer)
    }
}

/// Where a trap report says the reactor's code was: set by the serial context around each
/// item it runs (`CTrapReport`).
enum TrapContext {
    @inline(__always)
    static func enter(_ instance: TrapLabel?, _ action: TrapLabel?) {
        guard let instance else { return }
        rh_trap_report_enter(instance.pointer, action?.pointer)
    }

    @inline(__always)
    static func leave(_ instance: TrapLabel?) {
        guard instance != nil else { return }
        rh_trap_report_leave()
    }
}

/// The report of a trap in a reactor's code: one line on standard error naming the instance
/// and the action, before the process ends as it would have (`CTrapReport`).
package enum TrapReport {
    /// Installs the handlers (once; later calls do nothing). The daemon calls it at start.
    package static func install() {
        rh_trap_report_install("reactorhub")
    }
}
