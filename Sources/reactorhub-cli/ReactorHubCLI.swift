import Dispatch
import Foundation
import ReactorHubJSON
import ReactorHubLogging
import ReactorHubClient

/// `reactorhub-cli watch|send|state URL REACTOR …`: the Swift client library from a terminal.
@main
enum ReactorHubCLI {
    static func main() async {
        let arguments: CLIArguments
        do {
            guard let parsed = try CLIArguments.parse(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) else {
                print(CLIArguments.usage)
                exit(0)
            }
            arguments = parsed
        } catch {
            Output.standardError("reactorhub-cli: \(error.message) (see --help)")
            exit(2)
        }
        var logger = Logger(label: "reactorhub-cli")
        logger.logLevel = .warning
        exit(await run(arguments, logger: logger))
    }

    static func run(_ arguments: CLIArguments, logger: Logger) async -> Int32 {
        let output = Output(json: arguments.json, arguments: arguments)
        var options = HubClientOptions()
        options.caFile = arguments.caFile
        options.allowsInsecureTLS = arguments.insecure
        options.helloTimeout = .milliseconds(Int64(arguments.timeout * 1000))
        let timeout = Duration.milliseconds(Int64(arguments.timeout * 1000))
        let settings = options
        let hub: HubClient
        do {
            hub = try await withTimeout(timeout, "connecting to \(arguments.url)") {
                try await HubClient.connect(arguments.url, token: arguments.token.map { .static($0) }, options: settings, logger: logger)
            }
        } catch {
            output.error(error)
            return 1
        }
        let status: Int32
        do {
            let reactor = try await withTimeout(timeout, "joining \(arguments.reactor)") {
                try await hub.join(arguments.reactor)
            }
            switch arguments.command {
            case .state:
                output.state(arguments.reactor, reactor.revision)
                status = 0
            case .send:
                let ack = try await withTimeout(timeout, "waiting for the answer of \(arguments.reactor)") {
                    try await reactor.dispatch(Self.action(arguments.action ?? ""))
                }
                output.ack(arguments.reactor, ack)
                status = 0
            case .watch:
                status = await watch(reactor, hub: hub, output: output)
            }
            await reactor.leave()
        } catch {
            output.error(error)
            status = 1
        }
        await hub.close()
        return status
    }

    /// An action given on the command line: JSON when it parses as a string or an
    /// object, else a bare action name.
    static func action(_ text: String) -> JSONValue {
        if let parsed = try? JSONValue(parsing: text) {
            switch parsed {
            case .object, .string: return parsed
            default: break
            }
        }
        return .string(text)
    }

    /// Prints each revision (state or pulse) until a signal, or until the reactor ends.
    static func watch(_ reactor: RemoteReactor<JSONValue, JSONValue>, hub: HubClient, output: Output) async -> Int32 {
        let stop = SignalWatch()
        let printer = Task {
            var pulses: [String: FiredPulse] = [:]
            for await revision in reactor.revisions(bufferingNewest: 4096) {
                if revision.cause == .pulse {
                    for (name, fired) in revision.pulses.sorted(by: { $0.key < $1.key }) where fired.count != pulses[name]?.count {
                        output.pulse(reactor.address, version: revision.version, name: name, value: fired.value)
                    }
                } else {
                    output.state(reactor.address, revision)
                }
                pulses = revision.pulses
            }
        }
        let statuses = Task {
            for await status in hub.statusUpdates {
                switch status {
                case .reconnecting, .open: Output.standardError("reactorhub-cli: \(status)")
                default: break
                }
            }
        }
        let ended = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await stop.wait(); return false }
            group.addTask { await printer.value; return true }
            let first = await group.next() ?? false
            // The other task waits on something outside the group: end it.
            printer.cancel()
            stop.cancel()
            return first
        }
        statuses.cancel()
        printer.cancel()
        stop.cancel()
        if ended {
            // The reactor ended while we watched: left by the server, or the client closed
            // for good (a revoked or expired token cannot be renewed): say why, exit 1.
            output.error(reactor.endReason ?? HubClientError(.closed, "\(reactor.address) ended", reactor: reactor.address))
            return 1
        }
        return 0
    }

    /// Runs `body`, failing with `timeout` when it takes longer than `limit`.
    static func withTimeout<Result: Sendable>(_ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> Result) async throws(HubClientError) -> Result {
        let outcome = await withTaskGroup(of: Swift.Result<Result, HubClientError>?.self) { group in
            group.addTask {
                do { return .success(try await body()) } catch let error as HubClientError { return .failure(error) } catch { return .failure(HubClientError(.internal, "\(error)")) }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let outcome else {
            throw HubClientError(.timeout, "gave up \(what) after \(limit)")
        }
        return try outcome.get()
    }
}
