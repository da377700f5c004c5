import ReactorHubDaemon
import Foundation

/// The whole ReactorHub daemon as a library: the configuration file, environment and
/// flags, signals, persistence, auth, metrics — everything `reactorhub` does — serving
/// the reactor kinds you register.
///
/// ```swift
/// import ReactorHubServer
///
/// @main struct PollServer {
///     static func main() async {
///         await ReactorHub.main { kinds in
///             try kinds.includeShipped()                       // counter, weather, todo, doc
///             try kinds.register("poll", settings: PollSettings.self) { settings in
///                 PollReactor(settings: settings)
///             }
///         }
///     }
/// }
/// ```
public enum ReactorHub {
    /// Runs the daemon with the process's arguments and environment and exits with its
    /// status (0 after a clean shutdown, 2 for a bad command line, configuration or
    /// registration, 1 when the server cannot start).
    public static func main(_ register: @escaping @Sendable (ReactorKinds) throws -> Void) async -> Never {
        let status = await run(
            arguments: Array(CommandLine.arguments.dropFirst()),
            environment: ProcessInfo.processInfo.environment,
            register
        )
        exit(status)
    }

    /// Runs the daemon with `arguments` (without the program name) and `environment`;
    /// returns the exit status.
    public static func run(
        arguments: [String],
        environment: [String: String],
        _ register: @escaping @Sendable (ReactorKinds) throws -> Void
    ) async -> Int32 {
        await Daemon.main(arguments: arguments, environment: environment) { registrar in
            try register(ReactorKinds(registrar))
        }
    }

    /// The version `--version` and `hello.server` report.
    public static var version: String { Daemon.version }
}
