import Foundation
import TestSupport

/// A real `reactorhub` process on an ephemeral port (or a given one, to restart "the same"
/// server), as Tests/e2e/conftest.py starts it: a temporary config, `--port 0`, and the
/// `listening on http://HOST:PORT` line read from its standard output.
struct DaemonProcess: Sendable {
    let process: ChildProcess
    let port: Int
    let configPath: String

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// `$REACTORHUB_BINARY`, else the debug build of this package.
    static var binary: String? {
        if let path = ProcessInfo.processInfo.environment["REACTORHUB_BINARY"], FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        let built = root + "/.build/debug/reactorhub"
        return FileManager.default.isExecutableFile(atPath: built) ? built : nil
    }

    static var isAvailable: Bool { binary != nil }

    static let memoryConfig = #"{"persistence":{"kind":"memory"},"reactors":{"counter":{"delayMs":50}}}"#

    /// Starts a daemon with `config` (JSON text) on `port` (0: any).
    static func start(config: String = memoryConfig, port: Int = 0, name: String = "client-daemon") async throws -> DaemonProcess {
        guard let binary else {
            throw TestClientError("no reactorhub binary: build it with `swift build --product reactorhub` or set REACTORHUB_BINARY")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rh-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let configPath = folder.appendingPathComponent("reactorhub.json").path
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        return try await start(binary: binary, configPath: configPath, port: port, name: name)
    }

    private static func start(binary: String, configPath: String, port: Int, name: String) async throws -> DaemonProcess {
        let output = ProcessInfo.processInfo.environment["REACTORHUB_TEST_OUTPUT"] ?? root + "/test-output"
        try? FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let process = try ChildProcess(
            binary, ["--config", configPath, "--port", String(port)],
            currentDirectory: root,
            standardError: output + "/\(name).log"
        )
        let line = try await process.nextLine(timeout: .seconds(30))
        guard line.hasPrefix("listening on http://"), let bound = line.split(separator: ":").last.flatMap({ Int($0) }) else {
            process.kill()
            throw TestClientError("the daemon did not start: \(line)")
        }
        return DaemonProcess(process: process, port: bound, configPath: configPath)
    }

    /// The WebSocket URL.
    var url: String { "ws://127.0.0.1:\(port)/ws" }

    /// Starts the same configuration again on the same port (after `kill()` or `stop()`).
    func restart(name: String = "client-daemon-restarted") async throws -> DaemonProcess {
        guard let binary = Self.binary else { throw TestClientError("no reactorhub binary") }
        // The port was just released; a moment may pass before it can be bound again.
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                return try await Self.start(binary: binary, configPath: configPath, port: port, name: name)
            } catch {
                lastError = error
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        throw lastError ?? TestClientError("could not restart the daemon")
    }

    /// Ends the daemon at once, as a crash would.
    func kill() {
        process.kill()
    }

    /// Stops the daemon cleanly (SIGTERM).
    func stop() async {
        await process.stop()
    }
}

/// The Python scripts beside these tests (Peers/), started as helper processes.
enum Peer {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Peers").path

    /// Starts `script` and returns it with the port it printed.
    static func start(_ script: String, _ arguments: [String] = []) async throws -> (ChildProcess, Int) {
        let process = try ChildProcess(await ChildProcess.python3(), [folder + "/" + script] + arguments)
        guard let port = Int(try await process.line(after: "listening ")) else {
            throw TestClientError("\(script) printed no port")
        }
        return (process, port)
    }
}
