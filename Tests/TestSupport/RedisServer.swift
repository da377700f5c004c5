#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// A `redis-server` started by a test on a free loopback port, without persistence
/// (`--save "" --appendonly no`, its own temporary `--dir`), so that a restart loses every
/// key, as a Redis without persistence does. Never a server the test did not start: it is
/// up only once the server answering on its port reports this process's id.
///
/// `@unchecked Sendable`: `port` and `process` change only in `start`/`launch`/`stop`/`kill`,
/// which a test calls from one task at a time.
public final class RedisServer: @unchecked Sendable {
    /// The loopback address the server binds.
    public let host = "127.0.0.1"
    /// The port the server listens on; the same across restarts.
    public private(set) var port: Int
    private let directory: URL
    /// `--replicaof HOST PORT` and the like, after the server's own arguments.
    private let extraArguments: [String]
    private var process: pid_t?
    /// The server's process id while it runs.
    public var processID: Int32? { process }

    private init(port: Int, directory: URL, extraArguments: [String]) {
        self.port = port
        self.directory = directory
        self.extraArguments = extraArguments
    }

    /// Starts a server on a free loopback port (another port is tried when the chosen one
    /// was taken in the meantime, also by another redis-server) and returns once it answers.
    /// `firstPort` is tried first instead of a free one (the fixture's own tests). With
    /// `replicaOf`, the server replicates that one (and starts a full synchronisation at once).
    public static func start(firstPort: Int? = nil, replicaOf master: RedisServer? = nil) async throws -> RedisServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("reactorhub-redis-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let replication = master.map { ["--replicaof", $0.host, String($0.port)] } ?? []
        let server = RedisServer(port: 0, directory: directory, extraArguments: ["--repl-diskless-sync-delay", "0"] + replication)
        var lastError: (any Error)?
        for attempt in 0..<8 {
            server.port = try attempt == 0 ? firstPort ?? freeLoopbackPort() : freeLoopbackPort()
            do {
                try await server.launch()
                return server
            } catch {
                lastError = error
            }
        }
        throw lastError ?? TestClientError("redis-server did not start")
    }

    deinit {
        if let process {
            // Not stopped by the test: SIGKILL is immediate, so this wait is short.
            Glibc.kill(process, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(process, &status, 0)
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server with SIGTERM and waits for it to exit (Redis acts on SIGTERM in its
    /// next cron tick, up to 100 ms later: the wait sleeps, it never blocks a thread).
    public func stop() async {
        await end(signal: SIGTERM)
    }

    /// Kills the server with SIGKILL (a crash) and waits for it to exit.
    public func kill() async {
        await end(signal: SIGKILL)
    }

    /// Freezes the server (SIGSTOP): connections stay open, nothing is answered.
    public func pause() {
        if let process { Glibc.kill(process, SIGSTOP) }
    }

    /// Wakes a paused server (SIGCONT).
    public func resume() {
        if let process { Glibc.kill(process, SIGCONT) }
    }

    /// Stops the server and starts an empty one on the same port (Redis restarted
    /// without its data, its script cache empty).
    public func restart() async throws {
        await stop()
        try await launch()
    }

    /// Starts a stopped or killed server again on the same port, empty.
    public func launch() async throws {
        let pid = try Self.spawn(Self.executable, [
            "--port", String(port), "--bind", host, "--save", "", "--appendonly", "no",
            "--dir", directory.path, "--daemonize", "no", "--logfile", directory.appendingPathComponent("redis.log").path,
        ] + extraArguments)
        process = pid
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if exited(pid) {
                process = nil
                throw TestClientError("redis-server exited at start on port \(port) (taken?)")
            }
            if let answering = answeringProcessID() {
                if answering == pid { return }
                // Another redis-server holds the port (a test elsewhere, in this process or
                // another, was handed the same free port): ours cannot bind and would exit,
                // and this test would share that server and lose it when its owner stops.
                await kill()
                throw TestClientError("port \(port) is served by another redis-server (pid \(answering))")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        await stop()
        throw TestClientError("redis-server on port \(port) did not answer within 20 s")
    }

    /// Sends `signal` and reaps the process (SIGKILL after 10 s if it is still there),
    /// polling with `Task.sleep` so that no thread of the shared pool is held meanwhile.
    private func end(signal: Int32) async {
        guard let pid = process else { return }
        process = nil
        Glibc.kill(pid, SIGCONT)
        Glibc.kill(pid, signal)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if exited(pid) { return }
            try? await Task.sleep(for: .milliseconds(5))
        }
        Glibc.kill(pid, SIGKILL)
        while !exited(pid) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether `pid` has exited (and is reaped).
    private func exited(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid
    }

    /// Starts `path` with `arguments`, its output to /dev/null, no other descriptor, with no
    /// signal blocked: a child inherits the test process's signal mask, and the test
    /// runner's threads block SIGTERM (a server spawned that way ignores `stop()`).
    private static func spawn(_ path: String, _ arguments: [String]) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Nothing else of the test process's: a server that outlived a failed test must not
        // hold a pipe of the test runner (or of another helper) open.
        _ = posixSpawnFileActionsAddCloseFrom(&actions, 3)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw TestClientError("posix_spawn \(path) failed: \(result)") }
        return pid
    }

    /// The process id of the redis-server that answers on the port now (`INFO server`'s
    /// `process_id`); nil when none answers.
    public func answeringProcessID() -> Int32? {
        guard let fd = try? TCPSocket.connect(host: host, port: port, timeout: 2) else { return nil }
        defer { Glibc.close(fd) }
        guard (try? TCPSocket.writeAll(fd, Array("INFO server\r\n".utf8))) != nil else { return nil }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let key = Array("process_id:".utf8)
        while reply.count < 65536 {
            guard let count = try? TCPSocket.read(fd, into: &chunk, timeout: 2), count > 0 else { return nil }
            reply += chunk.prefix(count)
            // Bytes, not Characters: "\r\n" is one Character, and "\r" is never found in one.
            guard let found = reply.indices.first(where: { reply[$0...].starts(with: key) }),
                  let end = reply[(found + key.count)...].firstIndex(of: UInt8(ascii: "\r"))
            else { continue }
            return Int32(String(decoding: reply[(found + key.count)..<end], as: UTF8.self))
        }
        return nil
    }

    private static var executable: String {
        ["/usr/bin/redis-server", "/usr/local/bin/redis-server"].first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? "/usr/bin/redis-server"
    }

    /// A loopback port that was free a moment ago: bind port 0, read it, close.
    private static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError("socket() failed: errno \(errno)") }
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw TestClientError("bind to a free port failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
