import ReactorHubProtocol
import ReactorHubLocking

/// Work posted to the service thread by other threads. Posting never blocks beyond a
/// short lock; the poster wakes the thread with `lws_cancel_service` only when the
/// inbox was empty, so a burst of posts costs one wake-up.
final class ServiceInbox: Sendable {
    enum Command: Sendable {
        case outputReady(ConnectionID)
        case outputReadyMany([ConnectionID])
        case setReading(ConnectionID, Bool)
        case close(ConnectionID, CloseCode, String, afterFlush: Bool)
        case closeAll(CloseCode, String, afterFlush: Bool)
        /// A socket the listening thread accepted for this one, from an address; the
        /// server's socket caps counted it already (`SocketGuard.take`).
        case adopt(Int32, String)
        case httpResponse(UInt64, HTTPResponse)
        /// The keepalive's once-a-second look at every connection.
        case keepaliveSweep
        case stop
    }

    private let commands = Locked<[Command]>([])

    /// Appends `command`; returns true when the inbox was empty (the caller must wake
    /// the service thread).
    func post(_ command: Command) -> Bool {
        commands.withLock { pending in
            pending.append(command)
            return pending.count == 1
        }
    }

    /// Takes every pending command, in posting order, into `batch` (empty, its capacity
    /// kept), which leaves its storage to the posts that follow: a thread that drains
    /// the inbox again and again allocates nothing for it.
    func takeAll(into batch: inout [Command]) {
        commands.withLock { pending in
            guard !pending.isEmpty else { return }
            swap(&pending, &batch)
        }
    }

    /// Takes every pending command, in posting order.
    func takeAll() -> [Command] {
        commands.withLock { pending in
            guard !pending.isEmpty else { return [] }
            let taken = pending
            pending = []
            return taken
        }
    }
}
