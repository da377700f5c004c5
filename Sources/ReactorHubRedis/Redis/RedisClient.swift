import Dispatch
import Foundation
import ReactorHubLocking
public import ReactorHubLogging
import Synchronization

/// A Redis client for any thread or task: commands are queued to the client's own worker
/// thread, which owns one blocking `RedisConnection`, and each caller's continuation is
/// resumed from there. Nothing blocks the caller's thread, the libwebsockets service thread
/// or Swift's cooperative pool.
///
/// When the link drops the worker reconnects by itself (at once, then with exponential
/// backoff and jitter) and reports each change of `linkState`. While the link is down,
/// commands fail at once with `.connection` instead of piling up: the caller decides
/// (answer `overloaded`, retry later). A command that fails with a link error may or may
/// not have run; it is never resent by the client.
///
/// Commands run one after the other in the order they were queued; a caller that needs
/// several in one round trip uses `pipeline`, and several atomically a `RedisScript`.
///
/// Long-running: `start()` then `shutdown()`, or `run()` under a task group.
public final class RedisClient: Sendable {
    /// The timeouts (and, without a directory, where Redis is).
    public let configuration: RedisConfiguration
    /// Where the links connect: the master now.
    public let directory: MasterDirectory
    let logger: Logger
    let queue = Locked(JobQueue())
    let wakeup = DispatchSemaphore(value: 0)
    /// The delivery probe asked for a new connection.
    let reconnectRequested = Atomic<Bool>(false)
    let link: LinkStateBroadcaster

    /// A client for the master `directory` names (by default, the server in
    /// `configuration`, for good); nothing connects before `start()`.
    public init(configuration: RedisConfiguration, directory: MasterDirectory? = nil, logger: Logger) {
        self.configuration = configuration
        self.directory = directory ?? .fixed(configuration.endpoint)
        var logger = logger
        logger[metadataKey: "redis"] = directory == nil ? configuration.endpoint.description : "master"
        self.logger = logger
        self.link = LinkStateBroadcaster()
    }

    /// Whether the link is up now (for `/readyz`: "cluster link down" otherwise).
    public var isConnected: Bool {
        link.current.isUp
    }

    /// The link's current state.
    public var linkState: RedisLinkState {
        link.current
    }

    /// The current state, then every change, until the stream's consumer stops or the
    /// client shuts down.
    public func linkStates() -> AsyncStream<RedisLinkState> {
        link.stream()
    }

    /// Sends one command and returns its reply; an error reply is thrown as `.reply`.
    public func send(_ arguments: [RedisArgument]) async throws(RedisError) -> RedisValue {
        try await perform { connection, _ throws(RedisError) in
            try connection.send(arguments)
        }
    }

    /// Sends several commands in one round trip; the replies come back in order, with
    /// error replies as `.error` values. Only a link failure is thrown.
    public func pipeline(_ commands: [[RedisArgument]]) async throws(RedisError) -> [RedisValue] {
        try await perform { connection, _ throws(RedisError) in
            try connection.pipeline(commands)
        }
    }

    /// Runs `script` with EVALSHA (SCRIPT LOAD first on a server that has not seen it,
    /// EVAL when the server answers NOSCRIPT). An error reply is thrown as `.reply`.
    public func run(
        _ script: RedisScript,
        keys: [RedisArgument],
        arguments: [RedisArgument]
    ) async throws(RedisError) -> RedisValue {
        try await perform { connection, scripts throws(RedisError) in
            try scripts.evaluate(script, keys: keys, arguments: arguments, on: connection)
        }
    }

    /// Runs `body` on the worker thread with the live connection, and returns its result.
    /// `body` must not keep the connection.
    func perform<Value: Sendable>(
        _ body: @escaping @Sendable (RedisConnection, ScriptCache) throws(RedisError) -> Value
    ) async throws(RedisError) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, RedisError>, Never>) in
            let job = Job(
                run: { connection, scripts in
                    continuation.resume(returning: Result { () throws(RedisError) in try body(connection, scripts) })
                },
                fail: { error in continuation.resume(returning: .failure(error)) }
            )
            if queue.withLock({ $0.add(job) }) {
                wakeup.signal()
            } else {
                job.fail(RedisError(.closed, "the Redis client was shut down"))
            }
        }
        return try result.get()
    }
}
