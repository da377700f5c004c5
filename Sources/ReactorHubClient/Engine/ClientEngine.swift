import Foundation
import ReactorHubJSON
import ReactorHubProtocol
import ReactorHubLogging

/// The client's one serial context: the connection and its reconnects, the reactors it
/// holds, the requests and actions waiting for answers. An actor: socket events, calls
/// from handles and timers all take turns in it, so none of its state needs a lock. What
/// handles read without waiting (the latest state) is published to each reactor's
/// `ReplicaPublisher`.
///
/// `run()` is the connection loop: connect (with the current token), read `hello`,
/// re-join every reactor (with `since` when it has a state), read until the connection
/// drops, wait for the backoff delay, and again, until `close()`. With several URLs, each
/// attempt that fails and each connection that drops moves on to the next one (the first
/// connection tries each of them once before it gives up).
actor ClientEngine {
    enum Request {
        case join(address: String)
        case leave(CheckedContinuation<Void, Never>)
        case ping(sentAt: ContinuousClock.Instant, CheckedContinuation<Result<Duration, HubClientError>, Never>)
        case auth
    }

    /// The URLs to connect to, in the order they are tried.
    let urls: [String]
    /// The index in `urls` of the current (or next) attempt.
    var urlIndex = 0
    let options: HubClientOptions
    let logger: Logger
    let socket: any ClientSocket
    let ownsSocket: Bool
    let tokenSource: TokenSource?
    nonisolated let board = StatusBoard()
    nonisolated let mismatches = MismatchBoard()
    /// How state checksums are computed: the protocol's rule on the portable SHA-256
    /// (libcrypto belongs to a server module; this client also builds on Apple platforms).
    let checksum = StateChecksum()

    // The connection.
    var connection: (any ClientSocketConnection)?
    var connectionNumber = 0
    /// `hello` arrived on the current connection.
    var isOpen = false
    var hello: HubServerInfo?
    /// Reconnect attempts since the last `hello`.
    var attempt = 0
    var isClosed = false
    var everOpened = false
    var runTask: Task<Void, Never>?
    var helloTimer: Task<Void, Never>?
    var firstOutcome: CheckedContinuation<Result<Void, HubClientError>, Never>?
    var lastFailure: HubClientError?
    /// The first connection's failures, one per URL tried.
    var firstFailures: [HubClientError] = []

    // The token.
    var token: String?
    /// The server refused or expired the token: fetch a fresh one before the next upgrade.
    var tokenIsStale = false
    var refreshTimer: Task<Void, Never>?

    // Reactors, requests, actions.
    var entries: [String: ReactorEntry] = [:]
    var requests: [Int: Request] = [:]
    var ledger = ActionLedger()
    var actionWaiters: [String: CheckedContinuation<Result<ActionAck, HubClientError>, Never>] = [:]
    var nextRef = 0

    init(urls: [String], token: TokenSource?, options: HubClientOptions, socket: any ClientSocket, ownsSocket: Bool, logger: Logger) {
        self.urls = urls
        self.tokenSource = token
        self.options = options
        self.socket = socket
        self.ownsSocket = ownsSocket
        self.logger = logger
    }

    /// The URL of the current (or next) attempt.
    var url: String { urls[urlIndex] }

    func makeRef() -> Int {
        nextRef += 1
        return nextRef
    }

    /// Sends one frame on the open connection; false when there is none.
    @discardableResult
    func send(_ frame: [UInt8]) -> Bool {
        guard let connection else { return false }
        connection.send(frame)
        return true
    }

    // MARK: Lifecycle

    /// Starts the connection loop; returns once the first connection said `hello`, or
    /// with the reason it did not.
    func start() async -> Result<Void, HubClientError> {
        board.set(.connecting)
        return await withCheckedContinuation { continuation in
            firstOutcome = continuation
            runTask = Task { await self.run() }
        }
    }

    private func run() async {
        while !isClosed {
            let reason = await connectAndServe()
            if isClosed { break }
            let failed = url
            urlIndex = (urlIndex + 1) % urls.count
            if !everOpened {
                let failure = lastFailure ?? HubClientError(.cannotConnect, reason)
                firstFailures.append(failure)
                // A refused token is refused by every node (they share the key): no other URL.
                if firstFailures.count < urls.count, failure.code != .unauthenticated {
                    logger.debug("moving on to the next URL", metadata: ["failed": failed, "next": url, "reason": failure.message])
                    continue
                }
                await shutDown(failure: Self.firstConnectionFailure(firstFailures))
                return
            }
            guard options.reconnect else {
                await shutDown(failure: HubClientError(.closed, "the connection closed and reconnecting is off: \(reason)"))
                return
            }
            if tokenIsStale, !canRefreshToken {
                // Revoked, expired or missing: the same token would be refused again, forever.
                await shutDown(failure: HubClientError(
                    .unauthenticated,
                    "the server ended the session (\(reason)) and this client has no way to get a new token: connect again with a fresh one"
                ))
                return
            }
            let delay = options.backoff.delay(attempt: attempt, random: options.random())
            attempt += 1
            board.set(.reconnecting(attempt: attempt, delay: delay, reason: reason))
            logger.debug("reconnecting", metadata: ["attempt": String(attempt), "delay": "\(delay)", "reason": reason])
            try? await Task.sleep(for: delay)
        }
    }

    /// Why the first connection failed: the one failure, or each URL's.
    private static func firstConnectionFailure(_ failures: [HubClientError]) -> HubClientError {
        guard failures.count > 1, let last = failures.last else {
            return failures.first ?? HubClientError(.cannotConnect, "could not connect")
        }
        let code: HubClientError.Code = failures.allSatisfy { $0.code == .invalidURL } ? .invalidURL : last.code
        return HubClientError(code, "no URL worked: " + failures.map(\.message).joined(separator: "; "))
    }

    func finishFirst(_ result: Result<Void, HubClientError>) {
        let waiter = firstOutcome
        firstOutcome = nil
        waiter?.resume(returning: result)
    }

    /// One connection from connect to loss; returns why it ended.
    private func connectAndServe() async -> String {
        lastFailure = nil
        var headers: [String: String] = [:]
        if let token = await currentToken() {
            headers["Authorization"] = "Bearer \(token)"
        }
        let request = ClientSocketRequest(url: url, subprotocols: options.subprotocols, headers: headers)
        let opened: any ClientSocketConnection
        do {
            opened = try await socket.connect(request)
        } catch {
            if error.isInvalidURL {
                lastFailure = HubClientError(.invalidURL, error.message)
            } else if error.httpStatus == 401 {
                tokenIsStale = true
                lastFailure = HubClientError(.unauthenticated, "the server refused the token (HTTP 401): \(error.message)")
            } else {
                lastFailure = HubClientError(.cannotConnect, "could not connect to \(url): \(error.message)")
            }
            return lastFailure?.message ?? error.message
        }
        guard !isClosed else {
            opened.close(code: 1000, reason: "client closed")
            return "closed"
        }
        connectionNumber += 1
        let number = connectionNumber
        connection = opened
        let timeout = options.helloTimeout
        helloTimer = Task {
            try? await Task.sleep(for: timeout)
            self.helloTimedOut(number)
        }
        for await event in opened.events {
            switch event {
            case .message(let bytes):
                received(bytes, on: number)
            case .closed(let code, let reason):
                return lost(number, code: code, reason: reason)
            }
        }
        return lost(number, code: 1006, reason: "connection lost")
    }

    private func helloTimedOut(_ number: Int) {
        guard number == connectionNumber, !isOpen, let connection else { return }
        logger.warning("no hello from the server in time; dropping the connection", metadata: ["url": url])
        lastFailure = HubClientError(.timeout, "the server sent no hello within \(options.helloTimeout)")
        connection.close(code: 1002, reason: "no hello")
    }

    /// The connection is gone: what was waiting on it fails or waits for the next one.
    private func lost(_ number: Int, code: UInt16, reason: String) -> String {
        guard number == connectionNumber else { return reason }
        let description = reason.isEmpty ? "closed with \(code)" : "closed with \(code): \(reason)"
        isOpen = false
        connection = nil
        helloTimer?.cancel()
        refreshTimer?.cancel()
        if code == 1008, reason.contains("expired") || reason.contains("revoked") || reason.contains("authentication") {
            tokenIsStale = true
        }
        if !everOpened, lastFailure == nil {
            lastFailure = HubClientError(.cannotConnect, "the connection to \(url) \(description) before the server said hello")
        }
        let pending = requests
        requests = [:]
        for request in pending.values {
            switch request {
            case .join, .auth:
                break
            case .leave(let waiter):
                waiter.resume()
            case .ping(_, let waiter):
                waiter.resume(returning: .failure(HubClientError(.disconnected, "the connection \(description) before the pong")))
            }
        }
        for entry in entries.values {
            entry.joinRef = nil
            entry.joinedOn = nil
            entry.resyncing = false
        }
        for failed in ledger.connectionLost(number, resends: options.resendsUnansweredActions) {
            rollBack(failed)
            let message = failed.sends >= 2
                ? "the connection \(description) twice before the server answered action \(failed.id); it may or may not have been applied"
                : "the connection \(description) before the server answered action \(failed.id); it may or may not have been applied"
            actionWaiters.removeValue(forKey: failed.id)?.resume(returning: .failure(HubClientError(.disconnected, message, reactor: failed.address)))
        }
        logger.debug("connection lost", metadata: ["code": String(code), "reason": reason])
        return description
    }

    /// Closes for good: the connection (with 1000, waiting up to `closeHandshakeTimeout` for
    /// the server's close frame, so that the server sees a normal close and not 1006), every
    /// stream, every wait.
    func close() async {
        guard !isClosed else {
            await runTask?.value
            return
        }
        isClosed = true
        if let connection {
            await connection.close(code: 1000, reason: "client closed", waitingUpTo: Self.closeHandshakeTimeout)
        }
        runTask?.cancel()
        await shutDown(failure: HubClientError(.closed, "the client was closed"))
        await runTask?.value
    }

    /// How long `close()` waits for the server's answer to its close frame.
    static let closeHandshakeTimeout: Duration = .seconds(1)

    /// Ends everything: the socket first (when the client owns it), then every wait. In
    /// that order a caller that hears of the end can leave the process at once: the
    /// socket's service thread has stopped and released its TLS context by then (exiting
    /// while it still ran let OpenSSL's exit handlers free what it was using).
    private func shutDown(failure: HubClientError) async {
        isClosed = true
        isOpen = false
        helloTimer?.cancel()
        refreshTimer?.cancel()
        if ownsSocket {
            await socket.shutdown()
        }
        finishFirst(.failure(failure))
        let pending = requests
        requests = [:]
        for request in pending.values {
            switch request {
            case .join, .auth: break
            case .leave(let waiter): waiter.resume()
            case .ping(_, let waiter): waiter.resume(returning: .failure(failure))
            }
        }
        for action in ledger.removeAll() {
            actionWaiters.removeValue(forKey: action.id)?.resume(returning: .failure(HubClientError(failure.code, failure.message, reactor: action.address)))
        }
        let ended = entries
        entries = [:]
        for entry in ended.values {
            entry.resolveWaiters(.failure(HubClientError(failure.code, failure.message, reactor: entry.address)))
            entry.publisher.finish(failure)
        }
        board.set(.closed)
        mismatches.close()
    }
}
