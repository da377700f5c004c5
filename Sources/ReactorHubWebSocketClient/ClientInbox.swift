import ReactorHubProtocol
import ReactorHubLocking

/// Work posted to a client's service thread by other threads; the same idiom as the
/// server's `ServiceInbox`: posting takes a short lock and says whether the thread must be
/// woken (only when the inbox was empty, so a burst costs one wake-up).
final class ClientInbox: Sendable {
    enum Command: Sendable {
        /// Start a connection to the first of `addresses` (IP literals, already resolved).
        case connect(ClientConnectionID, WebSocketClientRequest, any WebSocketClientDelegate, addresses: [String])
        /// Try the connection's next address (posted by the service thread itself, so that
        /// lws is not asked to connect from inside the callback of the attempt that failed).
        case retry(ClientConnectionID)
        case send(ClientConnectionID, OutboundMessage)
        case close(ClientConnectionID, CloseCode, String)
        /// Close every connection and end the service thread.
        case stop
    }

    /// What became of a posted command.
    enum PostResult {
        /// Queued in an empty inbox: the caller must wake the service thread.
        case wake
        /// Queued behind others: the thread is already being woken.
        case queued
        /// The inbox is closed (the client shut down): the command will never run.
        case rejected
    }

    private struct Contents {
        var commands: [Command] = []
        var isClosed = false
    }

    private let contents = Locked(Contents())

    /// Appends `command` unless the inbox is closed.
    func post(_ command: Command) -> PostResult {
        contents.withLock { contents in
            guard !contents.isClosed else { return .rejected }
            contents.commands.append(command)
            return contents.commands.count == 1 ? .wake : .queued
        }
    }

    /// Takes every pending command, in posting order.
    func takeAll() -> [Command] {
        contents.withLock { contents in
            guard !contents.commands.isEmpty else { return [] }
            defer { contents.commands = [] }
            return contents.commands
        }
    }

    /// Refuses every later post and returns what was still pending.
    func close() -> [Command] {
        contents.withLock { contents in
            contents.isClosed = true
            defer { contents.commands = [] }
            return contents.commands
        }
    }
}
