public import Logging

/// The daemon's command line (CONFIG.md):
/// `reactorhub [--config FILE] [--host ADDR] [--port N] [--web-root DIR] [--log-level LEVEL]
/// [--print-config] [--help] [--version]`.
public struct CommandLineOptions: Sendable, Equatable {
    /// What the invocation asks for.
    public enum Mode: Sendable, Equatable {
        case run
        case printConfig
        case help
        case version
    }

    /// What to do.
    public var mode = Mode.run
    /// `--config FILE`.
    public var configFile: String?
    /// `--host ADDR`.
    public var host: String?
    /// `--port N`.
    public var port: Int?
    /// `--web-root DIR`.
    public var webRoot: String?
    /// `--log-level LEVEL`.
    public var logLevel: Logger.Level?

    /// The text of `--help`.
    public static let usage = """
        usage: reactorhub [options]

        Runs the ReactorHub daemon: shared ReactorKit-style reactors kept in sync with
        WebSocket clients at ws://HOST:PORT/ws, and the demo page at http://HOST:PORT/.

        options:
          --config FILE      configuration file (default: config/reactorhub.json if present,
                             else built-in defaults)
          --host ADDR        address to listen on (default 127.0.0.1; env REACTORHUB_HOST)
          --port N           port to listen on, 0 for an ephemeral port (default 8080;
                             env REACTORHUB_PORT)
          --web-root DIR     folder of static files served over HTTP (default web)
          --log-level LEVEL  trace, debug, info, notice, warning, error or critical
                             (default info; env REACTORHUB_LOG_LEVEL)
          --print-config     print the effective configuration as JSON and exit
          --help             print this help and exit
          --version          print the version and exit

        Precedence: built-in defaults < config file < environment < flags.
        The daemon prints "listening on http://HOST:PORT" once it accepts connections.
        SIGINT or SIGTERM shut it down gracefully (clients are closed with 1001).

        """

    /// Parses the arguments after the program name.
    public init(arguments: [String]) throws(ConfigurationError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            func value() throws(ConfigurationError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else {
                    throw ConfigurationError("\(name) needs a value; see --help")
                }
                return next
            }
            switch name {
            case "--config":
                configFile = try value()
            case "--host":
                host = try value()
            case "--port":
                let text = try value()
                guard let number = Int(text), (0...65535).contains(number) else {
                    throw ConfigurationError("--port must be an integer from 0 to 65535, got \"\(text)\"")
                }
                port = number
            case "--web-root":
                webRoot = try value()
            case "--log-level":
                let text = try value()
                guard let level = Logger.Level(rawValue: text) else {
                    throw ConfigurationError("--log-level must be one of \(Logger.Level.acceptedNames), got \"\(text)\"")
                }
                logLevel = level
            case "--print-config":
                mode = .printConfig
            case "--help", "-h":
                mode = .help
            case "--version":
                mode = .version
            default:
                throw ConfigurationError("unknown option '\(argument)'; see --help")
            }
        }
    }

    /// Builds the effective configuration: defaults < file < environment < flags.
    /// `readFile` returns a file's bytes or nil when it does not exist.
    public func effectiveConfiguration(
        environment: [String: String],
        readFile: (String) -> [UInt8]?
    ) throws(ConfigurationError) -> Configuration {
        var configuration = Configuration()
        if let configFile {
            guard let bytes = readFile(configFile) else {
                throw ConfigurationError("\(configFile): configuration file not found or not readable")
            }
            try configuration.apply(fileContents: bytes, source: configFile)
        } else if let bytes = readFile(Self.defaultConfigFile) {
            try configuration.apply(fileContents: bytes, source: Self.defaultConfigFile)
        }
        if let host = environment["REACTORHUB_HOST"] {
            guard !host.isEmpty else { throw ConfigurationError("REACTORHUB_HOST must not be empty") }
            configuration.host = host
        }
        if let text = environment["REACTORHUB_PORT"] {
            guard let number = Int(text), (0...65535).contains(number) else {
                throw ConfigurationError("REACTORHUB_PORT must be an integer from 0 to 65535, got \"\(text)\"")
            }
            configuration.port = number
        }
        if let text = environment["REACTORHUB_LOG_LEVEL"] {
            guard let level = Logger.Level(rawValue: text) else {
                throw ConfigurationError("REACTORHUB_LOG_LEVEL must be one of \(Logger.Level.acceptedNames), got \"\(text)\"")
            }
            configuration.logLevel = level
        }
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let webRoot { configuration.webRoot = webRoot }
        if let logLevel { configuration.logLevel = logLevel }
        return configuration
    }

    /// The file read when `--config` is not given, relative to the working directory.
    public static let defaultConfigFile = "config/reactorhub.json"
}
