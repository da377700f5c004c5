public import ReactorHubJSON

/// The daemon's command line (CONFIG.md): `reactorhub [--config FILE] [FLAG VALUE]…
/// [--print-config] [--help] [--version]`, every flag that sets a key declared in
/// `ConfigurationSchema`; `reactorhub token …` (`TokenRequest`) and `reactorhub types …`
/// (`TypesRequest`).
public struct CommandLineOptions: Sendable, Equatable {
    /// What the invocation asks for.
    public enum Mode: Sendable, Equatable {
        /// Serve until SIGINT or SIGTERM.
        case run
        /// Print the effective configuration as JSON and exit.
        case printConfig
        /// Print the README's table of keys and exit (hidden: regenerates the README).
        case printConfigReference
        /// Print `usage` and exit.
        case help
        /// Print `tokenUsage` (`reactorhub token --help`) and exit.
        case tokenHelp
        /// Print the version and exit.
        case version
        /// Mint a token (`reactorhub token …`).
        case token(TokenRequest)
        /// Print `typesUsage` (`reactorhub types --help`) and exit.
        case typesHelp
        /// Print a daemon's kinds as TypeScript declarations (`reactorhub types …`).
        case types(TypesRequest)
    }

    /// A key set by a flag: `--port 7000` sets `port` to 7000.
    public struct FlagValue: Sendable, Equatable {
        /// The flag as written, `--port`.
        public var flag: String
        /// The key it sets, `port`.
        public var key: String
        /// The value, checked against the key.
        public var value: JSONValue
    }

    /// What to do.
    public var mode = Mode.run
    /// `--config FILE` (of the daemon or of `token`).
    public var configFile: String?
    /// The keys the flags set, in command-line order (a later one wins).
    public var flags: [FlagValue] = []

    /// Parses the arguments after the program name.
    public init(arguments: [String]) throws(ConfigurationError) {
        var cursor = ArgumentCursor(arguments[...])
        if cursor.peek() == "token" {
            _ = cursor.next()
            try parseToken(&cursor)
            return
        }
        if cursor.peek() == "types" {
            _ = cursor.next()
            try parseTypes(&cursor)
            return
        }
        while let (name, argument) = cursor.next() {
            switch name {
            case "--config":
                configFile = try cursor.value(of: name)
            case "--print-config":
                mode = .printConfig
            case "--print-config-reference":
                mode = .printConfigReference
            case "--help", "-h":
                mode = .help
            case "--version":
                mode = .version
            default:
                guard let key = Self.keysByFlag[name] else { throw Self.unknown(argument, among: Self.daemonOptions) }
                let text = try cursor.value(of: name)
                flags.append(FlagValue(flag: name, key: key.name, value: try key.value(fromText: text, origin: name)))
            }
        }
    }

    private mutating func parseToken(_ cursor: inout ArgumentCursor) throws(ConfigurationError) {
        var request = TokenRequest(sub: "")
        var sub: String?
        var noRights = false
        while let (name, argument) = cursor.next() {
            switch name {
            case "--sub":
                sub = try cursor.value(of: name)
            case "--read":
                request.read.append(try TokenRequest.pattern(cursor.value(of: name), flag: name))
            case "--act":
                request.act.append(try TokenRequest.pattern(cursor.value(of: name), flag: name))
            case "--ttl":
                request.ttlSeconds = try TokenRequest.seconds(cursor.value(of: name))
            case "--config":
                configFile = try cursor.value(of: name)
            case "--no-rights":
                noRights = true
            case "--help", "-h":
                mode = .tokenHelp
                return
            default:
                throw Self.unknown(argument, among: TokenRequest.options)
            }
        }
        guard let sub else { throw ConfigurationError("token needs --sub SUB; see reactorhub token --help") }
        guard (1...128).contains(sub.count) else {
            throw ConfigurationError("--sub must be 1 to 128 characters, got \(sub.count)")
        }
        if noRights, !(request.read.isEmpty && request.act.isEmpty) {
            throw ConfigurationError("token: --no-rights cannot be given with --read or --act")
        }
        if !noRights, request.read.isEmpty, request.act.isEmpty {
            throw ConfigurationError(
                "token: no --read or --act given, so the token would allow nothing; give --read PATTERN and/or "
                    + "--act PATTERN (e.g. --read 'doc/*'), or --no-rights for a token that only names the user"
            )
        }
        request.sub = sub
        mode = .token(request)
    }

    private mutating func parseTypes(_ cursor: inout ArgumentCursor) throws(ConfigurationError) {
        var url: String?
        var token: String?
        while let (name, argument) = cursor.next() {
            switch name {
            case "--url": url = try cursor.value(of: name)
            case "--token": token = try cursor.value(of: name)
            case "--help", "-h":
                mode = .typesHelp
                return
            default: throw Self.unknown(argument, among: TypesRequest.options)
            }
        }
        guard let url else { throw ConfigurationError("types needs --url ws://HOST:PORT/ws; see reactorhub types --help") }
        mode = .types(TypesRequest(url: url, token: token))
    }

    /// Builds the effective configuration: defaults < file < environment < flags, paths
    /// resolved (CONFIG.md).
    public func effectiveConfiguration(context: ConfigurationContext) throws(ConfigurationError) -> Configuration {
        try ConfigurationLoader(context: context).load(configFile: configFile, flags: flags).configuration
    }

    /// The keys that have a flag, by flag name.
    static let keysByFlag: [String: ConfigurationSchema.Key] = Dictionary(
        uniqueKeysWithValues: ConfigurationSchema.keys.compactMap { key in key.flag.map { ($0.name, key) } }
    )

    /// Every option of the daemon, for "did you mean".
    static var daemonOptions: [String] {
        ["--config", "--print-config", "--help", "--version"] + ConfigurationSchema.keys.compactMap(\.flag?.name)
    }

    private static func unknown(_ argument: String, among options: [String]) -> ConfigurationError {
        let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
        let hint = Spelling.closest(to: name, among: options).map { " (did you mean '\($0)'?)" } ?? ""
        return ConfigurationError("unknown option '\(argument)'\(hint); see --help")
    }
}
