import ReactorHubLibWebSockets
import ReactorHubProtocol
import Foundation
import ReactorHubLocking
import ReactorHubLogging
import Synchronization

/// Owns a client's libwebsockets context, its service thread and its connections.
///
/// Safety of `@unchecked Sendable`: the stored properties marked "service thread" are
/// touched only by the lws service thread (inside `lws_service` callbacks and the loop
/// itself) and, before that thread starts, by the thread that creates the core. What other
/// threads touch is a `let`, an `Atomic`, a `Latch` or a `Locked`: `inbox`, `running`,
/// `threadEnded`, `wakeContext`, `nextNumber`.
final class ClientCore: LWSProtocolHandler, @unchecked Sendable {
    let configuration: WebSocketClientConfiguration
    let logger: Logger
    let inbox = ClientInbox()
    let running = Atomic<Bool>(true)
    let nextNumber = Atomic<UInt64>(0)
    /// Opens when the service thread has ended and released the context.
    let threadEnded = Latch()
    /// The context while it may be woken; nil from the moment it starts being destroyed,
    /// so that `lws_cancel_service` is never called on a destroyed context.
    private let wakeContext = Locked<OpaquePointer?>(nil)

    // Service thread.
    var connections: [UInt64: ClientConnection] = [:]
    private var context: OpaquePointer?

    /// The C memory lws keeps pointers to, for the context's life; every connection binds
    /// to its protocol.
    private let lws = LWSContext()

    init(configuration: WebSocketClientConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    deinit {
        if let context {
            LWS.destroyContext(context)
        }
    }

    /// Creates the context (no listening socket), on the calling thread.
    func createContext() throws(WebSocketClientError) {
        ClientLogBridge.install(logger: logger)
        var options = LWSContextOptions(protocolName: "reactorhub-client")
        options.receiveBufferSize = 65536
        options.clientRetryPolicy = LWSRetryPolicy(
            secondsBeforePing: UInt16(clamping: configuration.pingIntervalSeconds),
            secondsBeforeHangup: UInt16(clamping: configuration.pingTimeoutSeconds)
        )
        options.port = nil
        options.flags = [.sslGlobalInit]
        options.timeoutSeconds = UInt32(clamping: configuration.connectTimeoutSeconds)
        options.connectTimeoutSeconds = UInt32(clamping: configuration.connectTimeoutSeconds)
        // Without a CA file lws also tries a folder of its own ("../share") and logs an
        // error when it is missing: name the system bundle instead, when there is one.
        if let caFile = configuration.caFile ?? Self.systemCABundle {
            options.clientCAFile = caFile
        }
        guard let created = lws.create(options, handler: self) else {
            throw WebSocketClientError(.unavailable, "libwebsockets could not create a client context")
        }
        context = created
        wakeContext.withLock { $0 = created }
    }

    /// The system's certificate bundle on Debian, if present.
    static var systemCABundle: String? {
        let path = "/etc/ssl/certs/ca-certificates.crt"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Starts the service thread.
    func startServiceThread() {
        let thread = Thread { [self] in
            serviceLoop()
        }
        thread.name = "reactorhub-client-lws"
        // 8 MiB, as every other thread of the process has: walks over a JSON value recurse once
        // per nesting level, and at the parser's limit a debug build's parse takes about 2.6 MiB
        // (JSONTests' DeepDocumentTests).
        thread.stackSize = 8 << 20
        thread.start()
    }

    private func serviceLoop() {
        while running.load(ordering: .acquiring), let context {
            LWS.service(context)
        }
        // From here on posts are refused (their callers hear of it); what was posted
        // before is answered as a shutdown.
        for command in inbox.close() {
            if case .connect(let id, _, let delegate, _) = command {
                delegate.webSocketFailed(id, error: WebSocketClientError(.shutDown, "the client was shut down"))
            }
        }
        if let context {
            wakeContext.withLock { $0 = nil }
            // Connections still open are closed by lws now; their delegates hear of it.
            LWS.destroyContext(context)
            self.context = nil
        }
        for connection in connections.values {
            connection.delegate.webSocketFailed(connection.id, error: WebSocketClientError(.shutDown, "the client was shut down"))
        }
        connections.removeAll()
        threadEnded.open()
    }

    /// A new connection number (any thread).
    func makeID() -> ClientConnectionID {
        ClientConnectionID(rawValue: nextNumber.add(1, ordering: .relaxed).newValue)
    }

    /// Queues `command` for the service thread and wakes it when needed; false when the
    /// client has shut down (the command will never run).
    @discardableResult
    func post(_ command: ClientInbox.Command) -> Bool {
        switch inbox.post(command) {
        case .rejected:
            return false
        case .queued:
            return true
        case .wake:
            wakeContext.withLock { context in
                if let context {
                    LWS.cancelService(context)
                }
            }
            return true
        }
    }

    /// Runs the commands posted by other threads (service thread).
    func drainInbox() {
        for command in inbox.takeAll() {
            switch command {
            case .connect(let id, let request, let delegate, let addresses):
                let connection = ClientConnection(id: id, request: request, delegate: delegate, maxMessageBytes: configuration.maxMessageBytes)
                connection.addresses = addresses
                connections[id.rawValue] = connection
                startAttempt(connection)
            case .retry(let id):
                if let connection = connections[id.rawValue], connection.phase == .resolving {
                    startAttempt(connection)
                }
            case .send(let id, let message):
                if let connection = connections[id.rawValue], connection.pendingClose == nil {
                    connection.outbound.append(message)
                    if connection.phase == .open {
                        requestWritable(connection)
                    }
                }
            case .close(let id, let code, let reason):
                if let connection = connections[id.rawValue] {
                    close(connection, code: code, reason: reason)
                }
            case .stop:
                running.store(false, ordering: .releasing)
            }
        }
    }

    func requestWritable(_ connection: ClientConnection) {
        guard !connection.writableRequested, let wsi = connection.wsi else { return }
        connection.writableRequested = true
        LWS.callbackOnWritable(wsi)
    }

    /// Connects to the connection's next address; reports the failure when none is left.
    func startAttempt(_ connection: ClientConnection) {
        guard let context else { return }
        guard !connection.addresses.isEmpty else {
            finish(connection, failure: WebSocketClientError(
                .cannotConnect,
                "could not connect to \(connection.request.url.hostHeader): \(connection.lastFailure ?? "no address")"
            ))
            return
        }
        let address = connection.addresses.removeFirst()
        let url = connection.request.url
        connection.phase = .connecting
        connection.httpStatus = nil
        connection.subprotocol = nil

        var info = LWSClientConnectOptions(address: address, port: url.port, path: url.target, host: url.hostHeader)
        info.secure = url.isSecure
        info.allowsInsecureTLS = connection.request.allowsInsecureTLS
        if !connection.request.subprotocols.isEmpty {
            info.protocols = connection.request.subprotocols.joined(separator: ", ")
        }
        info.opaqueUserData = connection.opaqueUserData
        if let wsi = lws.connect(context, info) {
            connection.wsi = wsi
            return
        }
        // Failed at once (lws reports no CONNECTION_ERROR then): the next address, if any.
        connection.wsi = nil
        connection.phase = .resolving
        connection.lastFailure = "libwebsockets refused to start the connection to \(address)"
        post(.retry(connection.id))
    }

    /// Closes `connection` with `code`: at once when it is open (from its writable
    /// callback), by dropping it when it is still connecting.
    func close(_ connection: ClientConnection, code: CloseCode, reason: String) {
        guard connection.pendingClose == nil else { return }
        connection.pendingClose = (code, reason)
        switch connection.phase {
        case .open:
            requestWritable(connection)
        case .connecting:
            if let wsi = connection.wsi {
                LWS.killAsync(wsi)
            }
        case .resolving:
            finish(connection, failure: WebSocketClientError(.cancelled, "the connection was closed before it opened"))
        }
    }

    /// The connection never opened: forget it and tell its delegate.
    func finish(_ connection: ClientConnection, failure: WebSocketClientError) {
        connections[connection.id.rawValue] = nil
        connection.wsi = nil
        connection.delegate.webSocketFailed(connection.id, error: failure)
    }
}
