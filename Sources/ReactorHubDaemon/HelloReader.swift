import Foundation
import Synchronization
import ReactorHubLogging
import ReactorHubProtocol
import ReactorHubWebSocketClient

/// Opens one WebSocket connection to a daemon, reads its first message (`hello`) and closes
/// the connection: what `reactorhub types` needs of a running daemon.
final class HelloReader: WebSocketClientDelegate {
    private let waiting = Mutex<CheckedContinuation<[UInt8], any Error>?>(nil)

    /// The first message of the daemon at `url` (`Authorization: Bearer token` when given).
    static func read(url: WebSocketURL, token: String?, logger: Logger) async throws -> [UInt8] {
        var configuration = WebSocketClientConfiguration()
        configuration.connectTimeoutSeconds = 10
        let client = try WebSocketClient.start(configuration: configuration, logger: logger)
        let reader = HelloReader()
        let headers = token.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? []
        do {
            let message = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
                reader.waiting.withLock { $0 = continuation }
                client.connect(WebSocketClientRequest(url: url, subprotocols: ["reactorhub.v1"], headers: headers), delegate: reader)
            }
            await client.shutdown()
            return message
        } catch {
            await client.shutdown()
            throw error
        }
    }

    private func finish(_ result: Result<[UInt8], any Error>) {
        waiting.withLock { continuation in
            continuation?.resume(with: result)
            continuation = nil
        }
    }

    func webSocketOpened(_ id: ClientConnectionID, subprotocol: String?) {}

    func webSocket(_ id: ClientConnectionID, received message: [UInt8]) {
        finish(.success(message))
    }

    func webSocketClosed(_ id: ClientConnectionID, code: CloseCode, reason: String) {
        finish(.failure(TypesError("the daemon closed the connection (\(code.rawValue)\(reason.isEmpty ? "" : " \(reason)")) before its hello")))
    }

    func webSocketFailed(_ id: ClientConnectionID, error: WebSocketClientError) {
        finish(.failure(TypesError("cannot connect: \(error)")))
    }
}

/// A failure of `reactorhub types`, with the sentence it prints.
struct TypesError: Error {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}
