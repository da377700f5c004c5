public import ReactorHubProtocol
public import ReactorHubLogging
import ReactorHubLocking

/// A WebSocket client on libwebsockets' client API: `ws://` and `wss://` connections,
/// each reporting to its own delegate.
///
/// One client owns one lws context and one service thread (lws 4.1 as Debian builds it
/// serves a context from one thread); every lws call happens there. The methods here may
/// be called from any thread and never block beyond a short lock: they post commands to
/// an inbox that the service thread drains after `lws_cancel_service` wakes it. Host names
/// resolve on a global queue first, since lws would resolve them on its thread.
///
/// ```swift
/// let client = try WebSocketClient.start(logger: logger)
/// let id = client.connect(WebSocketClientRequest(url: url, subprotocols: ["reactorhub.v1"]), delegate: connection)
/// client.send(OutboundMessage(text: #"{"type":"ping"}"#), on: id)
/// client.close(id, code: .normal, reason: "")
/// await client.shutdown()
/// ```
public final class WebSocketClient: Sendable {
    private let core: ClientCore

    /// The configuration the client was started with.
    public var configuration: WebSocketClientConfiguration { core.configuration }

    private init(core: ClientCore) {
        self.core = core
    }

    /// Creates the lws context and starts its service thread.
    public static func start(configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(), logger: Logger) throws(WebSocketClientError) -> WebSocketClient {
        let core = ClientCore(configuration: configuration, logger: logger)
        try core.createContext()
        core.startServiceThread()
        return WebSocketClient(core: core)
    }

    /// Opens a connection; what becomes of it goes to `delegate` (on the service thread).
    /// Returns at once with the connection's identifier.
    @discardableResult
    public func connect(_ request: WebSocketClientRequest, delegate: any WebSocketClientDelegate) -> ClientConnectionID {
        let id = core.makeID()
        let core = core
        HostResolver.resolve(request.url.host, port: request.url.port) { addresses in
            guard !addresses.isEmpty else {
                delegate.webSocketFailed(id, error: WebSocketClientError(.unknownHost, "the host name '\(request.url.host)' does not resolve"))
                return
            }
            if !core.post(.connect(id, request, delegate, addresses: addresses)) {
                delegate.webSocketFailed(id, error: WebSocketClientError(.shutDown, "the client was shut down"))
            }
        }
        return id
    }

    /// Queues `message` on connection `id`; written in order once the connection is open.
    /// Dropped when the connection is closing or gone. The message must not be shared with
    /// another connection: lws masks a client's payload in place while writing it.
    public func send(_ message: OutboundMessage, on id: ClientConnectionID) {
        core.post(.send(id, message))
    }

    /// Closes connection `id` with `code` (its delegate then hears `webSocketClosed`), or
    /// abandons it when it is not open yet (`webSocketFailed` with `cancelled`).
    public func close(_ id: ClientConnectionID, code: CloseCode, reason: String) {
        core.post(.close(id, code, reason))
    }

    /// Ends the service thread: connections still open are dropped (their delegates hear
    /// of it) and the lws context is released. Returns once that is done.
    public func shutdown() async {
        core.post(.stop)
        await core.threadEnded.wait()
    }
}
