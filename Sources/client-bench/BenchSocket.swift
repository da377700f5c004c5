import ReactorHubClient

/// A `ClientSocket` that plays a server from frames prepared in advance, so the benchmark
/// measures the client alone: the frames are bytes already, handed over as fast as the
/// client takes them.
final class BenchSocket: ClientSocket {
    let connection: BenchConnection

    /// `answer` plays the server for what the client sends (its joins).
    init(answer: @escaping @Sendable (BenchConnection, [UInt8]) -> Void) {
        connection = BenchConnection(answer: answer)
    }

    func connect(_ request: ClientSocketRequest) async throws(ClientSocketError) -> any ClientSocketConnection {
        connection
    }

    func shutdown() async {}
}

final class BenchConnection: ClientSocketConnection {
    let events: AsyncStream<ClientSocketEvent>
    let continuation: AsyncStream<ClientSocketEvent>.Continuation

    let answer: @Sendable (BenchConnection, [UInt8]) -> Void

    init(answer: @escaping @Sendable (BenchConnection, [UInt8]) -> Void) {
        self.answer = answer
        (events, continuation) = AsyncStream.makeStream()
    }

    /// The server's side: one frame to the client.
    func deliver(_ frame: [UInt8]) {
        continuation.yield(.message(frame))
    }

    func send(_ message: [UInt8]) {
        answer(self, message)
    }

    func close(code: UInt16, reason: String) {
        continuation.yield(.closed(code: code, reason: reason))
        continuation.finish()
    }
}
