import Foundation
import ReactorHubLocking
#if canImport(Glibc)
import Glibc
#endif

/// A helper process a test starts and reads from: a daemon, a Python peer. Its standard
/// output is read line by line on a thread of its own, so a test can wait for the line
/// that says it is ready; standard error goes to a file (or nowhere). The process is
/// killed when the test calls `stop()` or `kill()`, or when this object is released.
///
/// Spawned with `posix_spawn` and a clean signal mask: Foundation's `Process` passes on
/// the blocked signals of the thread that spawns it, and a child with SIGTERM blocked
/// cannot be asked to stop.
public final class ChildProcess: Sendable {
    private struct State {
        var lines: [String] = []
        var partial: [UInt8] = []
        var ended = false
        var exitStatus: Int32?
    }

    /// The process id.
    public let pid: Int32
    private let name: String
    private let state = Locked(State())

    /// Starts `executable` (a path) with `arguments`; `standardError` is a file path to append to.
    public init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        currentDirectory: String? = nil,
        standardError: String? = nil
    ) throws {
        name = (executable as NSString).lastPathComponent
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw TestClientError("pipe failed: \(errno)") }
        let (readEnd, writeEnd) = (pipe[0], pipe[1])

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addopen(&actions, 2, standardError ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        // Descriptors 0-2 only: a helper must not inherit the pipes of the test runner or of
        // the helpers started at the same moment on other threads (their readers would never
        // see the end of their output while this one lives).
        _ = posixSpawnFileActionsAddCloseFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let environment = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { $1 }
        // glibc has no portable chdir file action: GNU env changes the folder, then execs.
        let command = currentDirectory.map { ["/usr/bin/env", "-C", $0, executable] } ?? [executable]
        let argv = (command + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child = pid_t()
        let result = posix_spawn(&child, command[0], &actions, &attributes, argv, envp)
        close(writeEnd)
        guard result == 0 else {
            close(readEnd)
            throw TestClientError("could not start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child

        let state = self.state
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                let chunk = count > 0 ? buffer[0..<count] : []
                let done = state.withLock { state -> Bool in
                    guard count > 0 else {
                        state.ended = true
                        return true
                    }
                    for byte in chunk {
                        if byte == UInt8(ascii: "\n") {
                            state.lines.append(String(decoding: state.partial, as: UTF8.self))
                            state.partial = []
                        } else {
                            state.partial.append(byte)
                        }
                    }
                    return false
                }
                if done { break }
            }
            close(readEnd)
        }
        thread.start()
    }

    deinit {
        kill()
    }

    /// The real `python3` executable, not a wrapper script (a pyenv shim would take the
    /// signals meant for Python and leave it running): what `python3` on PATH reports.
    public static func python3() async -> String {
        if let known = python3Path.withLock({ $0 }) { return known }
        var path = "/usr/bin/python3"
        if let probe = try? ChildProcess("/usr/bin/env", ["python3", "-c", "import sys; print(sys.executable)"]),
           let line = try? await probe.nextLine(timeout: .seconds(30)), !line.isEmpty
        {
            path = line
        }
        python3Path.withLock { $0 = path }
        return path
    }

    private static let python3Path = Locked<String?>(nil)

    private func takeLine() -> String? {
        state.withLock { $0.lines.isEmpty ? nil : $0.lines.removeFirst() }
    }

    private var hasEnded: Bool { state.withLock { $0.ended } }

    /// Whether the process is still running.
    public var isRunning: Bool { reap(block: false) == nil }

    /// The next line the process printed; throws when it ends or `timeout` passes first.
    public func nextLine(timeout: Duration = .seconds(60)) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let line = takeLine() { return line }
            if hasEnded { throw TestClientError("\(name) ended before printing the line expected") }
            if ContinuousClock.now >= deadline { throw TestClientError("no line from \(name) within \(timeout)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The next line that starts with `prefix`, what follows it; earlier lines are skipped.
    public func line(after prefix: String, timeout: Duration = .seconds(60)) async throws -> String {
        while true {
            let line = try await nextLine(timeout: timeout)
            if line.hasPrefix(prefix) { return String(line.dropFirst(prefix.count)) }
        }
    }

    /// Asks the process to stop (SIGTERM), waits up to `timeout` for it, then kills it;
    /// returns its exit status (or the signal that ended it, negated).
    @discardableResult
    public func stop(timeout: Duration = .seconds(10)) async -> Int32 {
        if let status = reap(block: false) { return status }
        Glibc.kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let status = reap(block: false) { return status }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return kill()
    }

    /// Ends the process at once (SIGKILL), as a crash would, and waits for it.
    @discardableResult
    public func kill() -> Int32 {
        if let status = reap(block: false) { return status }
        Glibc.kill(pid, SIGKILL)
        return reap(block: true) ?? -SIGKILL
    }

    /// The exit status once the process has ended (reaped once, remembered after).
    private func reap(block: Bool) -> Int32? {
        state.withLock { state in
            if let status = state.exitStatus { return status }
            var status: Int32 = 0
            var result: pid_t
            repeat {
                result = waitpid(pid, &status, block ? 0 : WNOHANG)
            } while result < 0 && errno == EINTR
            guard result == pid else { return nil }
            let signal = status & 0x7f
            state.exitStatus = signal == 0 ? (status >> 8) & 0xff : -signal
            return state.exitStatus
        }
    }
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc
/// module does not import (it is declared under `__USE_MISC`): the child closes every
/// descriptor from `lowest` up before it runs the program.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
func posixSpawnFileActionsAddCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) -> Int32
