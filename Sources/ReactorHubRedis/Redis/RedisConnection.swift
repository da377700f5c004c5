internal import CHiredis
#if canImport(Glibc)
import Glibc
#endif

/// One blocking hiredis connection, used by one thread at a time.
///
/// Every call blocks until Redis answers or the command timeout passes, so this type is
/// for the Cluster module's own threads (`RedisClient`, `RedisSubscriber`), never for the
/// libwebsockets service thread nor Swift's cooperative pool. After a link failure
/// (`isBroken`) hiredis cannot reuse the context: open a new connection.
public final class RedisConnection {
    private var context: UnsafeMutablePointer<redisContext>?

    /// The I/O, timeout or protocol error that made the connection unusable; nil while it
    /// works. Error replies do not break a connection.
    public private(set) var failure: RedisError?

    /// Whether a link failure made the connection unusable.
    public var isBroken: Bool {
        failure != nil
    }

    /// Connects to `host:port` within `connectTimeout`; every later read and write waits at
    /// most `commandTimeout` (`redisSetTimeout`, SO_RCVTIMEO/SO_SNDTIMEO).
    public init(host: String, port: Int, connectTimeout: Duration, commandTimeout: Duration) throws(RedisError) {
        guard let context = redisConnectWithTimeout(host, Int32(port), connectTimeout.timeval) else {
            throw RedisError(.connection, "cannot allocate a hiredis context")
        }
        if context.pointee.err != 0 {
            let error = Self.contextError(context, while: "connecting to \(host):\(port)")
            redisFree(context)
            throw error
        }
        guard redisSetTimeout(context, commandTimeout.timeval) == rh_redis_ok() else {
            let error = Self.contextError(context, while: "setting the command timeout")
            redisFree(context)
            throw error
        }
        _ = redisEnableKeepAlive(context)
        self.context = context
    }

    deinit {
        if let context { redisFree(context) }
    }

    /// Closes the socket; later calls fail with `.closed`.
    public func close() {
        if let context { redisFree(context) }
        context = nil
    }

    /// The socket, for callers that poll it before reading (`RedisSubscriber`).
    var fileDescriptor: Int32 {
        context?.pointee.fd ?? -1
    }

    /// Sends one command and waits for its reply; an error reply is thrown as `.reply`.
    public func send(_ arguments: [RedisArgument]) throws(RedisError) -> RedisValue {
        let context = try usableContext()
        let raw = Self.withArgv(arguments) { argc, argv, lengths in
            redisCommandArgv(context, argc, argv, lengths)
        }
        guard let raw else { throw fail(context, while: "sending \(Self.name(arguments))") }
        return try take(raw).throwingError()
    }

    /// Sends every command before reading any reply (one round trip), and returns the
    /// replies in order; error replies come back as `.error` values, not thrown.
    public func pipeline(_ commands: [[RedisArgument]]) throws(RedisError) -> [RedisValue] {
        for command in commands {
            try append(command)
        }
        var replies: [RedisValue] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            replies.append(try readReply())
        }
        return replies
    }

    /// Queues one command in the output buffer; it is written by the next read or `flush`.
    public func append(_ arguments: [RedisArgument]) throws(RedisError) {
        let context = try usableContext()
        let status = Self.withArgv(arguments) { argc, argv, lengths in
            redisAppendCommandArgv(context, argc, argv, lengths)
        }
        guard status == rh_redis_ok() else { throw fail(context, while: "queueing \(Self.name(arguments))") }
    }

    /// Writes the queued commands, blocking at most the command timeout.
    public func flush() throws(RedisError) {
        let context = try usableContext()
        var done: Int32 = 0
        while done == 0 {
            guard redisBufferWrite(context, &done) == rh_redis_ok() else { throw fail(context, while: "writing") }
        }
    }

    /// Writes what is queued, then waits for the next reply (error replies as `.error`).
    public func readReply() throws(RedisError) -> RedisValue {
        let context = try usableContext()
        var raw: UnsafeMutableRawPointer?
        guard redisGetReply(context, &raw) == rh_redis_ok(), let raw else {
            throw fail(context, while: "reading a reply")
        }
        return take(raw)
    }

    /// Reads what the socket holds now into hiredis' buffer (one `read`, which blocks when
    /// nothing is there: poll `fileDescriptor` first). A closed socket is a `.connection` error.
    func readAvailable() throws(RedisError) {
        let context = try usableContext()
        guard redisBufferRead(context) == rh_redis_ok() else { throw fail(context, while: "reading") }
    }

    /// The next complete reply already in hiredis' buffer, without touching the socket.
    func bufferedReply() throws(RedisError) -> RedisValue? {
        let context = try usableContext()
        var raw: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(context, &raw) == rh_redis_ok() else {
            throw fail(context, while: "parsing a reply")
        }
        return raw.map { take($0) }
    }

    private func usableContext() throws(RedisError) -> UnsafeMutablePointer<redisContext> {
        guard let context else { throw RedisError(.closed, "the connection was closed") }
        guard !isBroken else { throw RedisError(.connection, "the connection broke earlier; reconnect") }
        return context
    }

    /// Marks the connection broken and turns hiredis' error state into a Swift error.
    private func fail(_ context: UnsafeMutablePointer<redisContext>, while action: String) -> RedisError {
        let error = Self.contextError(context, while: action)
        failure = error
        return error
    }

    private func take(_ raw: UnsafeMutableRawPointer) -> RedisValue {
        defer { freeReplyObject(raw) }
        return Self.value(raw.assumingMemoryBound(to: redisReply.self))
    }
}

@available(*, unavailable, message: "a RedisConnection belongs to one thread; use RedisClient")
extension RedisConnection: Sendable {}
