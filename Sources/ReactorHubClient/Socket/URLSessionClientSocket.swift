#if canImport(Darwin)
import ReactorHubProtocol
import Foundation
import ReactorHubLocking

/// The client socket on Apple platforms: `URLSessionWebSocketTask`. Compiled only where
/// Darwin is (macOS, iOS); Linux uses `LibWebSocketsClientSocket`.
public final class URLSessionClientSocket: ClientSocket {
    private let session: URLSession
    private let delegate = SessionDelegate()

    /// Creates the socket on its own `URLSession` (`configuration` defaults to `.default`).
    public init(configuration: URLSessionConfiguration = .default) {
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    public func connect(_ request: ClientSocketRequest) async throws(ClientSocketError) -> any ClientSocketConnection {
        guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss" else {
            throw ClientSocketError("'\(request.url)' is not a ws:// or wss:// URL", isInvalidURL: true)
        }
        var urlRequest = URLRequest(url: url)
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        if !request.subprotocols.isEmpty {
            urlRequest.setValue(request.subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        let task = session.webSocketTask(with: urlRequest)
        let connection = URLSessionConnection(task: task)
        delegate.register(connection, for: task)
        let result = await withTaskCancellationHandler {
            await connection.open()
        } onCancel: {
            task.cancel(with: .normalClosure, reason: nil)
        }
        switch result {
        case .success:
            connection.startReceiving()
            return connection
        case .failure(let error):
            delegate.unregister(task)
            throw error
        }
    }

    public func shutdown() async {
        session.invalidateAndCancel()
    }
}

/// Routes the session's delegate callbacks to the connection of each task.
private final class SessionDelegate: NSObject, URLSessionWebSocketDelegate, @unchecked Sendable {
    // `@unchecked`: `connections` is only reached under its lock.
    private let connections = Locked<[Int: URLSessionConnection]>([:])

    func register(_ connection: URLSessionConnection, for task: URLSessionTask) {
        connections.withLock { $0[task.taskIdentifier] = connection }
    }

    func unregister(_ task: URLSessionTask) {
        connections.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
    }

    private func connection(_ task: URLSessionTask) -> URLSessionConnection? {
        connections.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        connection(webSocketTask)?.opened()
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        let text = reason.map { String(decoding: $0, as: UTF8.self) } ?? ""
        connection(webSocketTask)?.ended(code: UInt16(clamping: closeCode.rawValue), reason: text)
        unregister(webSocketTask)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let status = (task.response as? HTTPURLResponse)?.statusCode
        connection(task)?.failed(error?.localizedDescription ?? "the connection ended", httpStatus: status == 101 ? nil : status)
        unregister(task)
    }
}

/// One `URLSessionWebSocketTask` as a `ClientSocketConnection`.
final class URLSessionConnection: ClientSocketConnection, @unchecked Sendable {
    // `@unchecked`: the mutable state is only reached under `state`'s lock; the task is
    // thread-safe.
    private struct State {
        var opening: CheckedContinuation<Result<Void, ClientSocketError>, Never>?
        var isOpen = false
        var isFinished = false
    }

    let events: AsyncStream<ClientSocketEvent>
    private let continuation: AsyncStream<ClientSocketEvent>.Continuation
    private let task: URLSessionWebSocketTask
    private let state = Locked(State())

    init(task: URLSessionWebSocketTask) {
        self.task = task
        (events, continuation) = AsyncStream.makeStream()
    }

    func open() async -> Result<Void, ClientSocketError> {
        await withCheckedContinuation { opening in
            state.withLock { $0.opening = opening }
            task.resume()
        }
    }

    func opened() {
        let opening = state.withLock { state -> CheckedContinuation<Result<Void, ClientSocketError>, Never>? in
            state.isOpen = true
            defer { state.opening = nil }
            return state.opening
        }
        opening?.resume(returning: .success(()))
    }

    func failed(_ message: String, httpStatus: Int?) {
        let opening = state.withLock { state -> CheckedContinuation<Result<Void, ClientSocketError>, Never>? in
            defer { state.opening = nil }
            return state.opening
        }
        if let opening {
            opening.resume(returning: .failure(ClientSocketError(message, httpStatus: httpStatus)))
        }
        ended(code: 1006, reason: message)
    }

    func ended(code: UInt16, reason: String) {
        let first = state.withLock { state -> Bool in
            defer { state.isFinished = true }
            return !state.isFinished
        }
        guard first else { return }
        continuation.yield(.closed(code: code, reason: reason))
        continuation.finish()
    }

    func startReceiving() {
        task.receive { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(.string(let text)):
                continuation.yield(.message(Array(text.utf8)))
                startReceiving()
            case .success(.data):
                task.cancel(with: .unsupportedData, reason: nil)
                ended(code: 1003, reason: "binary frames are not accepted")
            case .success:
                startReceiving()
            case .failure(let error):
                ended(code: UInt16(clamping: task.closeCode.rawValue == 0 ? 1006 : task.closeCode.rawValue), reason: error.localizedDescription)
            }
        }
    }

    func send(_ message: [UInt8]) {
        task.send(.string(String(decoding: message, as: UTF8.self))) { _ in }
    }

    func close(code: UInt16, reason: String) {
        task.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure, reason: Data(reason.utf8))
        ended(code: code, reason: reason)
    }
}
#endif
