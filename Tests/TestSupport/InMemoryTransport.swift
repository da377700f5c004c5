import ReactorHubEngine
public import ReactorHubProtocol
import Dispatch
import Foundation
import ReactorHubLocking

/// A `MessageTransport` without sockets, so that the hub's protocol logic runs in-process
/// and deterministically (hummingbird's `.router` test mode).
///
/// Every handler call happens on one serial queue, as on the real transport's service
/// thread, and in the order the clients and the hub caused them. A client can model a
/// peer that stops reading: its "socket" then fills up to `socketCapacity` bytes, after
/// which the transport reports it choked, exactly as the libwebsockets server does.
public final class InMemoryTransport: MessageTransport {
    struct Connection {
        let client: InMemoryClient
        var pendingClose: (code: CloseCode, reason: String)?
    }

    private let queue = DispatchQueue(label: "in-memory-transport")
    private let handlerBox = Locked<(any TransportHandler)?>(nil)
    // Touched on `queue` only (and read through the lock by tests).
    private let connections = Locked<[ConnectionID: Connection]>([:])
    private let nextID = Locked<UInt64>(0)
    private let accepting = Locked(true)

    /// Creates a transport; `start(handler:)` attaches the hub.
    public init() {}

    public func start(handler: any TransportHandler) throws(TransportError) -> Int {
        handlerBox.withLock { $0 = handler }
        return 0
    }

    private var handler: (any TransportHandler)? { handlerBox.withLock { $0 } }

    /// Whether new connections are accepted (false after `stopAccepting()`).
    public var isAccepting: Bool { accepting.withLock { $0 } }

    /// Open connections.
    public var connectionCount: Int { connections.withLock { $0.count } }

    /// Opens a connection; returns once the handler has seen it (and sent `hello`).
    public func connect(
        path: String = "/ws", origin: String? = nil, peer: String = "127.0.0.1",
        query: [String: String] = [:], authorization: String? = nil
    ) async throws -> InMemoryClient {
        guard isAccepting else { throw TestClientError("the transport refuses new connections") }
        let id = nextID.withLock { next -> ConnectionID in
            next += 1
            return ConnectionID(rawValue: next)
        }
        let client = InMemoryClient(id: id, transport: self)
        await onQueue {
            self.connections.withLock { $0[id] = Connection(client: client) }
            self.handler?.connectionOpened(ConnectionInfo(
                id: id, path: path, origin: origin, subprotocol: "reactorhub.v1", peerAddress: peer,
                query: query, authorization: authorization
            ))
        }
        return client
    }

    func onQueue(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                body()
                done.resume()
            }
        }
    }

    func enqueue(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    // MARK: MessageTransport

    public func outputReady(_ id: ConnectionID) {
        queue.async { self.pump(id) }
    }

    public func outputReady(_ ids: [ConnectionID]) {
        queue.async {
            for id in ids { self.pump(id) }
        }
    }

    public func setReading(_ id: ConnectionID, enabled: Bool) {
        queue.async {
            guard let client = self.connections.withLock({ $0[id]?.client }) else { return }
            client.setServerReads(enabled)
        }
    }

    public func close(_ id: ConnectionID, _ end: ConnectionEnd, afterFlush: Bool) {
        queue.async { self.closeOnQueue(id, code: end.closeCode, reason: end.reason, afterFlush: afterFlush) }
    }

    public func stopAccepting() {
        accepting.withLock { $0 = false }
    }

    public func shutdown(_ end: ConnectionEnd, grace: Duration) async {
        stopAccepting()
        await onQueue {
            for id in self.connections.withLock({ Array($0.keys) }).sorted() {
                self.closeOnQueue(id, code: end.closeCode, reason: end.reason, afterFlush: true)
            }
        }
    }

    // MARK: On the queue

    /// Pulls output into the client's socket while it has room.
    func pump(_ id: ConnectionID) {
        guard let handler, let client = connections.withLock({ $0[id]?.client }) else { return }
        while client.socketHasRoom {
            guard let message = handler.nextOutput(for: id) else { return }
            client.deliver(message.text)
        }
        handler.connectionChoked(id)
    }

    /// A client sent `text`.
    func received(_ text: String, from id: ConnectionID) {
        guard connections.withLock({ $0[id] != nil }) else { return }
        handler?.connection(id, received: Array(text.utf8))
    }

    /// A client closed (or vanished, `code` 1006).
    func clientClosed(_ id: ConnectionID, code: CloseCode, reason: String) {
        guard connections.withLock({ $0.removeValue(forKey: id) }) != nil else { return }
        handler?.connectionClosed(id, code: code, reason: reason)
    }

    private func closeOnQueue(_ id: ConnectionID, code: CloseCode, reason: String, afterFlush: Bool) {
        guard let handler, let client = connections.withLock({ $0[id]?.client }) else { return }
        if afterFlush {
            while let message = handler.nextOutput(for: id) {
                client.deliver(message.text, ignoringCapacity: true)
            }
        }
        connections.withLock { $0[id] = nil }
        client.serverClosed(code: code, reason: reason)
        handler.connectionClosed(id, code: code, reason: reason)
    }
}
