import ReactorHubEngine
import ReactorHubProtocol
import ReactorHubLocking
import TestSupport
import ReactorHubWebSocketServer

/// A transport handler that records every event, keeps a plain FIFO of output per
/// connection (the hub's delivery policy is tested in HubTests), and, when `echo` is
/// set, sends each message back.
final class RecordingHandler: TransportHandler {
    struct Closed: Equatable {
        var id: ConnectionID
        var code: CloseCode
        var reason: String
    }

    private struct State {
        var opened: [ConnectionInfo] = []
        var messages: [(ConnectionID, [UInt8])] = []
        var closed: [Closed] = []
        var outputs: [ConnectionID: [OutboundMessage]] = [:]
        var chokes = 0
        var emptyPulls = 0
    }

    private let state = Locked(State())
    private let serverBox = Locked<WebSocketServer?>(nil)
    let echo: Bool

    init(echo: Bool = true) {
        self.echo = echo
    }

    func attach(_ server: WebSocketServer) {
        serverBox.withLock { $0 = server }
    }

    func detach() {
        serverBox.withLock { $0 = nil }
    }

    var opened: [ConnectionInfo] { state.withLock { $0.opened } }
    var closed: [Closed] { state.withLock { $0.closed } }
    var messageCount: Int { state.withLock { $0.messages.count } }
    /// Times the server found a socket full with output waiting.
    var chokes: Int { state.withLock { $0.chokes } }
    /// Times the server pulled and found nothing waiting.
    var emptyPulls: Int { state.withLock { $0.emptyPulls } }

    /// Payload bytes waiting for `id` and not yet pulled by the server, nil once closed.
    func queuedBytes(of id: ConnectionID) -> Int? {
        state.withLock { $0.outputs[id]?.reduce(0) { $0 + $1.count } }
    }

    /// Queues `message` for each of `ids` and tells the server.
    func send(_ message: OutboundMessage, to ids: [ConnectionID]) {
        state.withLock { state in
            for id in ids where state.outputs[id] != nil {
                state.outputs[id]!.append(message)
            }
        }
        serverBox.withLock { $0 }?.outputReady(ids)
    }

    func send(_ message: OutboundMessage, to id: ConnectionID) {
        send(message, to: [id])
    }

    /// Queues `messages`, in order, for `id`, and tells the server once.
    func send(_ messages: [OutboundMessage], to id: ConnectionID) {
        state.withLock { state in
            if state.outputs[id] != nil { state.outputs[id]! += messages }
        }
        serverBox.withLock { $0 }?.outputReady(id)
    }

    func connectionOpened(_ connection: ConnectionInfo) {
        state.withLock { state in
            state.opened.append(connection)
            state.outputs[connection.id] = []
        }
    }

    func connection(_ id: ConnectionID, received message: [UInt8]) {
        state.withLock { $0.messages.append((id, message)) }
        if echo {
            send(OutboundMessage(message), to: id)
        }
    }

    func connectionClosed(_ id: ConnectionID, code: CloseCode, reason: String) {
        state.withLock { state in
            state.closed.append(Closed(id: id, code: code, reason: reason))
            state.outputs[id] = nil
        }
    }

    func nextOutput(for id: ConnectionID) -> OutboundMessage? {
        takeOutput(for: id)?.message
    }

    /// As the hub does: says which message was the last one waiting (every `send` tells
    /// the server, so nothing queued after it is missed).
    func takeOutput(for id: ConnectionID) -> (message: OutboundMessage, isLast: Bool)? {
        state.withLock { state in
            guard let first = state.outputs[id]?.first else {
                state.emptyPulls += 1
                return nil
            }
            state.outputs[id]!.removeFirst()
            return (first, state.outputs[id]!.isEmpty)
        }
    }

    func connectionChoked(_ id: ConnectionID) {
        state.withLock { $0.chokes += 1 }
    }

    /// Checks `condition` until it holds or `timeout` passes, yielding between checks.
    func waitUntil(timeout: Duration = .seconds(30), _ condition: (RecordingHandler) -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(self)
    }
}

/// A started server on an ephemeral port with `configure` applied (no web root) and its
/// handler, attached; the caller shuts it down (tests of the shutdown itself).
func startedServer(
    echo: Bool = true, configure: (inout TransportConfiguration) -> Void = { _ in }
) throws -> (server: WebSocketServer, port: Int, handler: RecordingHandler) {
    var configuration = TransportConfiguration()
    configuration.port = 0
    configuration.webRoot = nil
    configure(&configuration)
    let handler = RecordingHandler(echo: echo)
    let server = WebSocketServer(configuration: configuration, logger: transportTestLogger)
    handler.attach(server)
    return (server, try server.start(handler: handler), handler)
}

/// Queues `count` messages of about 100 bytes for `id` until its socket is full (the
/// client reads nothing): returns once the server reported it choked.
func fillUntilChoked(_ handler: RecordingHandler, _ id: ConnectionID, count: Int = 40_000) async -> Bool {
    let chunk = String(repeating: "z", count: 100)
    for index in 0..<count {
        handler.send(OutboundMessage(text: "\(index):" + chunk), to: id)
    }
    return await handler.waitUntil { $0.chokes > 0 }
}

/// Reads `count` texts from each of `clients` at once; the texts of each, in client order.
func receiveAll(_ count: Int, from clients: [WebSocketTestClient], timeout: Double = 60) async throws -> [[String]] {
    try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
        for (index, client) in clients.enumerated() {
            group.addTask {
                var received: [String] = []
                for _ in 0..<count { received.append(try await client.receiveText(timeout: timeout)) }
                return (index, received)
            }
        }
        var all = [[String]](repeating: [], count: clients.count)
        for try await (index, received) in group { all[index] = received }
        return all
    }
}

/// Starts a server on an ephemeral port with `configure` applied, and stops it after `body`.
func withServer(
    echo: Bool = true,
    configure: (inout TransportConfiguration) -> Void = { _ in },
    _ body: (WebSocketServer, Int, RecordingHandler) async throws -> Void
) async throws {
    let (server, port, handler) = try startedServer(echo: echo, configure: configure)
    do {
        try await body(server, port, handler)
    } catch {
        await server.shutdown(code: .goingAway, reason: "test ended", grace: .milliseconds(200))
        handler.detach()
        throw error
    }
    await server.shutdown(code: .goingAway, reason: "test ended", grace: .milliseconds(500))
    handler.detach()
}
