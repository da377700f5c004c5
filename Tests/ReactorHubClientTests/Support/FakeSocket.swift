import ReactorHubJSON
import ReactorHubLocking
import ReactorHubClient

struct TestTimeout: Error, CustomStringConvertible {
    let description: String
}

/// Polls `condition` until it holds or `timeout` passes, on the caller's actor (a main-actor
/// test polls main-actor state).
/// The defaults are generous: the suites run in parallel on loaded machines, and a
/// condition that holds returns at once anyway.
func eventually(
    _ timeout: Duration = .seconds(60), isolation: isolated (any Actor)? = #isolation, _ condition: () async -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}

/// A `ClientSocket` in memory: each `connect` makes a `FakeConnection` the test plays the
/// server on (it reads what the client sent and answers by hand), or fails as told.
final class FakeSocket: ClientSocket {
    private struct Contents {
        var connections: [FakeConnection] = []
        var taken = 0
        var refusals: [ClientSocketError] = []
        var requests: [ClientSocketRequest] = []
        var shutDown = false
    }

    private let contents = Locked(Contents())

    func connect(_ request: ClientSocketRequest) async throws(ClientSocketError) -> any ClientSocketConnection {
        let outcome = contents.withLock { contents -> Result<FakeConnection, ClientSocketError> in
            contents.requests.append(request)
            if !contents.refusals.isEmpty {
                return .failure(contents.refusals.removeFirst())
            }
            let connection = FakeConnection(request: request)
            contents.connections.append(connection)
            return .success(connection)
        }
        return try outcome.get()
    }

    func shutdown() async {
        contents.withLock { $0.shutDown = true }
    }

    /// The next attempts fail with these errors, in order.
    func refuse(_ errors: ClientSocketError...) {
        contents.withLock { $0.refusals.append(contentsOf: errors) }
    }

    /// Every upgrade request so far.
    var requests: [ClientSocketRequest] { contents.withLock { $0.requests } }

    var isShutDown: Bool { contents.withLock { $0.shutDown } }

    /// The next connection the client opened (in order), waiting for it if needed.
    func nextConnection(timeout: Duration = .seconds(60)) async throws -> FakeConnection {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let next = contents.withLock { contents -> FakeConnection? in
                guard contents.taken < contents.connections.count else { return nil }
                contents.taken += 1
                return contents.connections[contents.taken - 1]
            }
            if let next { return next }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestTimeout(description: "the client opened no connection within \(timeout)")
    }

    /// Opens the next connection and says hello on it.
    func accept(session: String = "c1", hello extra: String = "") async throws -> FakeConnection {
        let connection = try await nextConnection()
        connection.hello(session: session, extra: extra)
        return connection
    }
}

/// One connection of a `FakeSocket`; the test is the server.
final class FakeConnection: ClientSocketConnection {
    private struct Contents {
        var sent: [JSONValue] = []
        var read = 0
        var closedByClient: (code: UInt16, reason: String)?
        var ended = false
    }

    let request: ClientSocketRequest
    let events: AsyncStream<ClientSocketEvent>
    private let continuation: AsyncStream<ClientSocketEvent>.Continuation
    private let contents = Locked(Contents())

    init(request: ClientSocketRequest) {
        self.request = request
        (events, continuation) = AsyncStream.makeStream()
    }

    // ClientSocketConnection

    func send(_ message: [UInt8]) {
        let value = (try? JSONParser().parse(message)) ?? .string(String(decoding: message, as: UTF8.self))
        contents.withLock { contents in
            if !contents.ended { contents.sent.append(value) }
        }
    }

    func close(code: UInt16, reason: String) {
        contents.withLock { contents in
            contents.closedByClient = (code, reason)
        }
        end(code: code, reason: reason)
    }

    // The server's side

    /// Everything the client sent so far.
    var sent: [JSONValue] { contents.withLock { $0.sent } }

    /// The close the client asked for, if it did.
    var closedByClient: (code: UInt16, reason: String)? { contents.withLock { $0.closedByClient } }

    /// The next message the client sent that the test has not read yet.
    func next(timeout: Duration = .seconds(60)) async throws -> JSONValue {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let next = contents.withLock { contents -> JSONValue? in
                guard contents.read < contents.sent.count else { return nil }
                contents.read += 1
                return contents.sent[contents.read - 1]
            }
            if let next { return next }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw TestTimeout(description: "the client sent nothing within \(timeout)")
    }

    /// The next message of type `type`; others before it are skipped.
    func next(_ type: String, timeout: Duration = .seconds(60)) async throws -> JSONValue {
        while true {
            let message = try await next(timeout: timeout)
            if message["type"]?.stringValue == type { return message }
        }
    }

    /// Whether the client sent something the test has not read, within `wait`.
    func hasUnread(within wait: Duration = .milliseconds(100)) async -> Bool {
        await eventually(wait) { contents.withLock { $0.read < $0.sent.count } }
    }

    /// Sends `text` (one JSON message) to the client.
    func deliver(_ text: String) {
        continuation.yield(.message(Array(text.utf8)))
    }

    func hello(session: String = "c1", extra: String = "") {
        let pulses = #"{"counter":{"actions":{"increase":{},"decrease":{}},"pulses":["alertMessage"]},"doc":{"actions":{},"pulses":["event"]},"todo":{"actions":{},"pulses":[]}}"#
        deliver(#"{"type":"hello","protocol":1,"server":"fake/1","session":"\#(session)","reactors":\#(pulses)\#(extra)}"#)
    }

    /// Reads the client's join of `address` and answers it with a snapshot.
    @discardableResult
    func answerJoin(_ address: String, state: String, epoch: String = "e1", version: Int = 0) async throws -> JSONValue {
        let join = try await next("join")
        guard join["reactor"]?.stringValue == address else {
            throw TestTimeout(description: "expected a join of \(address), got \(join)")
        }
        snapshot(address, ref: join["ref"], state: state, epoch: epoch, version: version)
        return join
    }

    func snapshot(_ address: String, ref: JSONValue?, state: String, epoch: String = "e1", version: Int) {
        let refText = ref.map { #","ref":\#(Self.text($0))"# } ?? ""
        deliver(#"{"type":"snapshot","reactor":"\#(address)"\#(refText),"epoch":"\#(epoch)","version":\#(version),"state":\#(state)}"#)
    }

    func patch(_ address: String, version: Int, base: Int? = nil, _ operations: String) {
        let baseText = base.map { #","base":\#($0)"# } ?? ""
        deliver(#"{"type":"patch","reactor":"\#(address)","version":\#(version)\#(baseText),"patch":\#(operations)}"#)
    }

    func pulse(_ address: String, version: Int, name: String, value: String) {
        deliver(#"{"type":"pulse","reactor":"\#(address)","version":\#(version),"name":"\#(name)","value":\#(value)}"#)
    }

    /// Ends the connection as the network or the server would.
    func drop(code: UInt16 = 1006, reason: String = "") {
        end(code: code, reason: reason)
    }

    private func end(code: UInt16, reason: String) {
        let first = contents.withLock { contents -> Bool in
            defer { contents.ended = true }
            return !contents.ended
        }
        guard first else { return }
        continuation.yield(.closed(code: code, reason: reason))
        continuation.finish()
    }

    static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.writeValue(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
