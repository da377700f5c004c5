import ReactorHubEngine
public import ReactorHubProtocol
import Foundation
import ReactorHubLocking

/// One client of an `InMemoryTransport`: sends text, receives what the server wrote, and
/// can stop reading to play a slow or hostile peer.
public final class InMemoryClient: Sendable {
    private struct Contents {
        /// Messages the client has read from its socket, not yet taken by the test.
        var inbox: [String] = []
        /// Messages written by the server but not read by a paused client.
        var socket: [String] = []
        var socketBytes = 0
        var paused = false
        var socketCapacity = Int.max
        /// The server stopped reading this client (`setReading`): its sends wait here.
        var serverReads = true
        var unread: [String] = []
        var closed: (code: CloseCode, reason: String)?
        /// Opened (and replaced) at every change, for the test waiting on one.
        var changed = Latch()
    }

    /// The connection's id as the server sees it.
    public let id: ConnectionID
    private unowned let transport: InMemoryTransport
    private let contents = Locked(Contents())

    init(id: ConnectionID, transport: InMemoryTransport) {
        self.id = id
        self.transport = transport
    }

    // MARK: What the test does

    /// Sends one text message.
    public func send(_ text: String) {
        transport.enqueue { [self] in
            let deliverNow = contents.withLock { contents -> Bool in
                if !contents.serverReads {
                    contents.unread.append(text)
                    return false
                }
                return true
            }
            if deliverNow { transport.received(text, from: id) }
        }
    }

    /// The next message the server wrote, as it was written.
    public func receive(timeout: Duration = .seconds(30)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let state = contents.withLock { contents -> (String?, Bool, Latch) in
                if !contents.inbox.isEmpty { return (contents.inbox.removeFirst(), false, contents.changed) }
                return (nil, contents.closed != nil, contents.changed)
            }
            if let text = state.0 { return text }
            if state.1 { throw TestClientError("connection closed (\(closeCode?.rawValue ?? 0)) while waiting for a message") }
            guard ContinuousClock.now < deadline else { throw TestClientError("no message within \(timeout)") }
            _ = await state.2.wait(timeout: deadline - ContinuousClock.now)
        }
    }

    /// The close the server sent, once it sent one.
    public func receiveClose(timeout: Duration = .seconds(30)) async throws -> (code: CloseCode, reason: String) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (closed, changed) = contents.withLock { ($0.closed, $0.changed) }
            if let closed { return closed }
            guard ContinuousClock.now < deadline else { throw TestClientError("no close within \(timeout)") }
            _ = await changed.wait(timeout: deadline - ContinuousClock.now)
        }
    }

    /// The close code the server sent, if it closed.
    public var closeCode: CloseCode? { contents.withLock { $0.closed?.code } }

    /// Stops reading: what the server writes stays in the socket, which takes
    /// `capacity` bytes before the server finds it full.
    public func pauseReading(socketCapacity capacity: Int = 64 * 1024) {
        contents.withLock { contents in
            contents.paused = true
            contents.socketCapacity = capacity
        }
    }

    /// Reads again: what waited in the socket arrives, and the server may write more.
    public func resumeReading() {
        contents.withLock { contents in
            contents.paused = false
            contents.socketCapacity = .max
            contents.inbox += contents.socket
            contents.socket = []
            contents.socketBytes = 0
        }
        wake()
        transport.outputReady(id)
    }

    /// Messages written to the client and not yet read by it (paused) or taken by the test.
    public var pendingCount: Int { contents.withLock { $0.inbox.count + $0.socket.count } }

    /// Closes the connection from the client's side (1000), or as if it vanished (1006).
    public func close(code: CloseCode = .normal, reason: String = "") {
        contents.withLock { $0.closed = $0.closed ?? (code, reason) }
        wake()
        transport.enqueue { [self] in
            transport.clientClosed(id, code: code, reason: reason)
        }
    }

    // MARK: What the transport does (on its queue)

    var socketHasRoom: Bool {
        contents.withLock { $0.closed == nil && (!$0.paused || $0.socketBytes < $0.socketCapacity) }
    }

    func deliver(_ text: String, ignoringCapacity: Bool = false) {
        contents.withLock { contents in
            if contents.paused {
                contents.socket.append(text)
                contents.socketBytes += text.utf8.count
            } else {
                contents.inbox.append(text)
            }
        }
        wake()
    }

    func serverClosed(code: CloseCode, reason: String) {
        contents.withLock { contents in
            contents.inbox += contents.socket
            contents.socket = []
            contents.closed = contents.closed ?? (code, reason)
        }
        wake()
    }

    func setServerReads(_ enabled: Bool) {
        let unread = contents.withLock { contents -> [String] in
            contents.serverReads = enabled
            guard enabled else { return [] }
            defer { contents.unread = [] }
            return contents.unread
        }
        for text in unread {
            transport.received(text, from: id)
        }
    }

    /// Whether the server has stopped reading this client.
    public var serverReads: Bool { contents.withLock { $0.serverReads } }

    // MARK: Waiting

    private func wake() {
        let changed = contents.withLock { contents -> Latch in
            defer { contents.changed = Latch() }
            return contents.changed
        }
        changed.open()
    }
}
