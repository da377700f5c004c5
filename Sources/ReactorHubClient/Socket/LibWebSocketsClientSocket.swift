#if os(Linux)
import ReactorHubProtocol
import ReactorHubLocking
public import ReactorHubLogging
import ReactorHubWebSocketClient

/// The client socket on Linux: libwebsockets' client API through `Transport`'s
/// `WebSocketClient` (one lws context and service thread, started at the first connect,
/// ended by `shutdown()`). `ws://` and `wss://` (the system's certificate authorities,
/// plus `caFile` when given).
public final class LibWebSocketsClientSocket: ClientSocket {
    private let configuration: WebSocketClientConfiguration
    private let allowsInsecureTLS: Bool
    private let logger: Logger
    private let client = Locked<WebSocketClient?>(nil)

    /// Creates the socket; nothing starts before the first `connect`.
    ///
    /// - Parameters:
    ///   - caFile: a PEM bundle of certificate authorities to trust besides the system's.
    ///   - allowsInsecureTLS: accept any certificate (tests against self-signed servers only).
    ///   - maxMessageBytes: a larger message from the server closes the connection (1009).
    public init(caFile: String? = nil, allowsInsecureTLS: Bool = false, maxMessageBytes: Int = 16 << 20, logger: Logger) {
        var configuration = WebSocketClientConfiguration()
        configuration.caFile = caFile
        configuration.maxMessageBytes = maxMessageBytes
        self.configuration = configuration
        self.allowsInsecureTLS = allowsInsecureTLS
        self.logger = logger
    }

    private func started() throws(ClientSocketError) -> WebSocketClient {
        let result: Result<WebSocketClient, WebSocketClientError> = client.withLock { client in
            if let client { return .success(client) }
            do throws(WebSocketClientError) {
                let started = try WebSocketClient.start(configuration: configuration, logger: logger)
                client = started
                return .success(started)
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let client): return client
        case .failure(let error): throw ClientSocketError(error.message)
        }
    }

    public func connect(_ request: ClientSocketRequest) async throws(ClientSocketError) -> any ClientSocketConnection {
        guard let url = WebSocketURL(request.url) else {
            throw ClientSocketError("'\(request.url)' is not a ws:// or wss:// URL", isInvalidURL: true)
        }
        let client = try started()
        let connection = LibWebSocketsConnection(client: client)
        let wireRequest = WebSocketClientRequest(
            url: url,
            subprotocols: request.subprotocols,
            headers: request.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
            allowsInsecureTLS: allowsInsecureTLS
        )
        let outcome = await withTaskCancellationHandler {
            await connection.open(wireRequest)
        } onCancel: {
            connection.cancel()
        }
        switch outcome {
        case .success:
            return connection
        case .failure(let error):
            throw ClientSocketError(error.message, httpStatus: error.httpStatus)
        }
    }

    public func shutdown() async {
        let client = client.withLock { client in
            defer { client = nil }
            return client
        }
        await client?.shutdown()
    }
}

/// One lws connection seen as a `ClientSocketConnection`: the delegate of its
/// `WebSocketClient` connection, turning service-thread callbacks into stream events.
final class LibWebSocketsConnection: ClientSocketConnection, WebSocketClientDelegate {
    private struct Contents {
        var id: ClientConnectionID?
        var opening: CheckedContinuation<Result<Void, WebSocketClientError>, Never>?
        var isOpen = false
        var isFinished = false
        var cancelled = false
    }

    let events: AsyncStream<ClientSocketEvent>
    private let continuation: AsyncStream<ClientSocketEvent>.Continuation
    private let client: WebSocketClient
    private let contents = Locked(Contents())
    /// Opens when lws reports the connection gone (after the closing handshake, a failure,
    /// or the client's shutdown).
    private let gone = Latch()

    init(client: WebSocketClient) {
        self.client = client
        (events, continuation) = AsyncStream.makeStream()
    }

    /// Starts the connection and waits for its upgrade.
    func open(_ request: WebSocketClientRequest) async -> Result<Void, WebSocketClientError> {
        await withCheckedContinuation { (opening: CheckedContinuation<Result<Void, WebSocketClientError>, Never>) in
            let cancelled = contents.withLock { contents -> Bool in
                contents.opening = opening
                return contents.cancelled
            }
            if cancelled {
                resolveOpening(.failure(WebSocketClientError(.cancelled, "cancelled before connecting")))
                return
            }
            let id = client.connect(request, delegate: self)
            let cancelledMeanwhile = contents.withLock { contents -> Bool in
                contents.id = id
                return contents.cancelled
            }
            if cancelledMeanwhile {
                client.close(id, code: .normal, reason: "cancelled")
            }
        }
    }

    /// The task that waits for the upgrade was cancelled.
    func cancel() {
        let id = contents.withLock { contents -> ClientConnectionID? in
            contents.cancelled = true
            return contents.id
        }
        if let id {
            client.close(id, code: .normal, reason: "cancelled")
        }
    }

    private func resolveOpening(_ result: Result<Void, WebSocketClientError>) {
        let opening = contents.withLock { contents -> CheckedContinuation<Result<Void, WebSocketClientError>, Never>? in
            defer { contents.opening = nil }
            if case .success = result { contents.isOpen = true }
            return contents.opening
        }
        opening?.resume(returning: result)
    }

    func send(_ message: [UInt8]) {
        guard let id = contents.withLock({ $0.isFinished ? nil : $0.id }) else { return }
        client.send(OutboundMessage(message), on: id)
    }

    func close(code: UInt16, reason: String) {
        guard let id = contents.withLock({ $0.id }) else { return }
        client.close(id, code: CloseCode(rawValue: code), reason: reason)
        end(code: code, reason: reason)
    }

    func close(code: UInt16, reason: String, waitingUpTo timeout: Duration) async {
        close(code: code, reason: reason)
        guard contents.withLock({ $0.id != nil }) else { return }
        _ = await gone.wait(timeout: timeout)
    }

    private func end(code: UInt16, reason: String) {
        let first = contents.withLock { contents -> Bool in
            defer { contents.isFinished = true }
            return !contents.isFinished
        }
        guard first else { return }
        continuation.yield(.closed(code: code, reason: reason))
        continuation.finish()
    }

    // WebSocketClientDelegate: called on the client's service thread.

    func webSocketOpened(_ id: ClientConnectionID, subprotocol: String?) {
        resolveOpening(.success(()))
    }

    func webSocket(_ id: ClientConnectionID, received message: [UInt8]) {
        continuation.yield(.message(message))
    }

    func webSocketClosed(_ id: ClientConnectionID, code: CloseCode, reason: String) {
        end(code: code.rawValue, reason: reason)
        gone.open()
    }

    func webSocketFailed(_ id: ClientConnectionID, error: WebSocketClientError) {
        resolveOpening(.failure(error))
        end(code: CloseCode.abnormal.rawValue, reason: error.message)
        gone.open()
    }
}
#endif
