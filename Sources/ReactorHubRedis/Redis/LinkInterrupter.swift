#if canImport(Glibc)
import Glibc
#endif
import ReactorHubLocking

/// Lets another thread cut a link's thread loose when the master moves: `shutdown(2)` on
/// the socket makes a read or write blocked on it (a frozen server, an XREAD BLOCK) return
/// at once, and `wake` ends the thread's wait, so it reconnects to the new master without
/// waiting for a timeout or its backoff.
///
/// The socket is attached once connected and detached before it is closed, both under the
/// lock `interrupt` takes, so a socket number reused after a close is never shut down.
final class LinkInterrupter: Sendable {
    private let socket = Locked<Int32?>(nil)
    private let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// The link's socket from now on.
    func attach(_ fd: Int32) {
        socket.withLock { $0 = fd }
    }

    /// The link is about to close its socket.
    func detach() {
        socket.withLock { $0 = nil }
    }

    /// Shuts the socket down (when there is one) and wakes the link's thread.
    func interrupt() {
        socket.withLock { fd in
            if let fd { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
        wake()
    }
}
