/// Builds the effective configuration (CONFIG.md): built-in defaults < config file <
/// environment < flags, then the rules between keys, then paths resolved and checked.
struct ConfigurationLoader {
    /// The file read when `--config` is not given, in the working directory; then the
    /// same name under the installed `share/reactorhub/`.
    static let defaultConfigFile = "config/reactorhub.json"

    /// The configuration and the file it came from.
    struct Loaded: Sendable {
        /// The effective configuration, paths absolute.
        var configuration: Configuration
        /// The absolute path of the file read, nil when none was.
        var file: String?
    }

    let context: ConfigurationContext

    /// Loads the configuration: `configFile` as given on the command line (or nil), and
    /// the values set by flags, in command-line order.
    func load(configFile: String?, flags: [CommandLineOptions.FlagValue]) throws(ConfigurationError) -> Loaded {
        var configuration = Configuration()
        // The folder each key set by the file, the environment or a flag takes a relative path from.
        var bases: [String: String] = [:]

        let file = locate(configFile)
        if let file {
            guard let bytes = context.readFile(file.path) else {
                throw ConfigurationError("\(file.source): configuration file not found or not readable")
            }
            var reader = ConfigurationReader(source: file.source)
            try reader.apply(bytes, to: &configuration)
            let folder = Paths.directory(of: file.path)
            for name in reader.keysSet { bases[name] = folder }
        }
        for key in ConfigurationSchema.keys {
            guard let variable = key.environment, let text = context.environment[variable] else { continue }
            _ = key.set(&configuration, try key.value(fromText: text, origin: variable))
            bases[key.name] = context.workingDirectory
        }
        for flag in flags {
            guard let key = ConfigurationSchema.keysByName[flag.key] else { continue }
            _ = key.set(&configuration, flag.value)
            bases[key.name] = context.workingDirectory
        }
        if configuration.cluster != nil, bases["persistence.kind"] == nil {
            // With a cluster, Redis holds the state and the history.
            configuration.persistence.kind = .redis
        }
        try configuration.validateRelations(source: file?.source)
        try resolvePaths(of: &configuration, bases: bases)
        return Loaded(configuration: configuration, file: file?.path)
    }

    /// The file to read: `--config`, else `config/reactorhub.json` of the working
    /// directory, else the installed one; nil when there is none.
    private func locate(_ configFile: String?) -> (path: String, source: String)? {
        if let configFile {
            return (context.absolute(configFile), configFile)
        }
        let local = context.absolute(Self.defaultConfigFile)
        if context.itemKind(local) == .file {
            return (local, Self.defaultConfigFile)
        }
        if let share = context.installedShareDirectory {
            let installed = Paths.resolve(Self.defaultConfigFile, against: share)
            if context.itemKind(installed) == .file {
                return (installed, installed)
            }
        }
        return nil
    }

    /// Makes every path absolute (CONFIG.md "Relative paths…") and refuses one that must
    /// exist and does not, naming the key and the resolved path.
    private func resolvePaths(of configuration: inout Configuration, bases: [String: String]) throws(ConfigurationError) {
        for key in ConfigurationSchema.keys {
            guard let rule = key.path, case .string(let path)? = key.get(configuration) else { continue }
            let resolved: String
            if let base = bases[key.name] {
                resolved = Paths.resolve(path, against: base)
            } else if rule.installed, let share = context.installedShareDirectory,
                      context.itemKind(Paths.resolve(path, against: share)) != nil {
                resolved = Paths.resolve(path, against: share)
            } else {
                resolved = context.absolute(path)
            }
            _ = key.set(&configuration, .string(resolved))
            switch rule.requirement {
            case .folder:
                guard context.itemKind(resolved) == .folder else {
                    throw ConfigurationError("\(key.name): folder not found: \(resolved)")
                }
            case .file:
                guard context.itemKind(resolved) == .file else {
                    throw ConfigurationError("\(key.name): file not found: \(resolved)")
                }
            case .creatable:
                break
            }
        }
    }
}
