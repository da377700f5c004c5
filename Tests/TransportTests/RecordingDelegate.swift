import Synchronization
import Transport

/// A delegate that records every event and, when `echo` is set, sends each message back.
final class RecordingDelegate: WebSocketServerDelegate {
    struct Closed: Equatable {
        var id: ConnectionID
        var code: CloseCode
        var reason: String
    }

    private struct State {
        var opened: [ConnectionInfo] = []
        var messages: [(ConnectionID, [UInt8])] = []
        var closed: [Closed] = []
        var resyncs: [(ConnectionID, [StreamID])] = []
    }

    private let state = Mutex(State())
    private let serverBox = Mutex<WebSocketServer?>(nil)
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
    var resyncs: [(ConnectionID, [StreamID])] { state.withLock { $0.resyncs } }

    func connectionOpened(_ connection: ConnectionInfo) {
        state.withLock { $0.opened.append(connection) }
    }

    func connection(_ id: ConnectionID, received message: [UInt8]) {
        state.withLock { $0.messages.append((id, message)) }
        if echo, let server = serverBox.withLock({ $0 }) {
            server.send(OutboundMessage(message), to: id)
        }
    }

    func connectionClosed(_ id: ConnectionID, code: CloseCode, reason: String) {
        state.withLock { $0.closed.append(Closed(id: id, code: code, reason: reason)) }
    }

    func connection(_ id: ConnectionID, needsResyncOf streams: [StreamID]) {
        state.withLock { $0.resyncs.append((id, streams)) }
    }

    /// Polls `condition` every 5 ms until it holds or `timeout` passes.
    func waitUntil(timeout: Duration = .seconds(5), _ condition: (RecordingDelegate) -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while clock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(self)
    }
}

/// Starts a server on an ephemeral port with `configure` applied, and stops it after `body`.
func withServer(
    echo: Bool = true,
    configure: (inout TransportConfiguration) -> Void = { _ in },
    _ body: (WebSocketServer, Int, RecordingDelegate) async throws -> Void
) async throws {
    var configuration = TransportConfiguration()
    configuration.port = 0
    configuration.webRoot = nil
    configure(&configuration)
    let delegate = RecordingDelegate(echo: echo)
    let server = WebSocketServer(configuration: configuration)
    delegate.attach(server)
    let port = try server.start(delegate: delegate)
    do {
        try await body(server, port, delegate)
    } catch {
        await server.shutdown(grace: .milliseconds(200))
        delegate.detach()
        throw error
    }
    await server.shutdown(grace: .milliseconds(500))
    delegate.detach()
}
