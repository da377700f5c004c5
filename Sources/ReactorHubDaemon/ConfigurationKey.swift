import ReactorHubJSON

/// One configuration key, declared once in `ConfigurationSchema` and bound to its member
/// of `Root` (`Configuration`, or the struct of an optional section). Reading the file,
/// the environment and the flags, refusals, `--print-config`, `--help` and the README's
/// table are all derived from these declarations.
struct ConfigurationKey<Root>: Sendable {
    /// The dotted name, `limits.maxMessageBytes`.
    let name: String
    /// One line: what the key does.
    let doc: String
    /// What it accepts: "an integer from 0 to 65535".
    let accepted: String
    /// What its variable's or flag's text may be.
    let acceptedText: String
    /// The environment variable that sets it, if any.
    let environment: String?
    /// The flag that sets it, if any.
    let flag: ConfigurationFlag?
    /// Set for paths.
    let path: ConfigurationPathRule?
    /// Whether `--print-config` shows `"***"` in place of the value.
    let isSecret: Bool
    /// The value with the secrets it holds replaced by `"***"`, when it holds some.
    let redact: (@Sendable (JSONValue) -> JSONValue)?
    /// The optional section that holds the key (`auth`), nil for keys always present.
    let section: String?
    /// The value as the file spells it; nil while its optional section is absent.
    let get: @Sendable (Root) -> JSONValue?
    /// Sets the value; false when `value` is not accepted (nothing changes).
    let set: @Sendable (inout Root, JSONValue) -> Bool
    /// The JSON value an environment variable's or flag's text stands for.
    let parseText: @Sendable (String) -> JSONValue?
    /// Brings in the key's optional section with its defaults, when it is absent.
    let createSection: @Sendable (inout Root) -> Void

    /// The value that `text` (of the variable or flag `origin`) stands for, checked.
    func value(fromText text: String, origin: String) throws(ConfigurationError) -> JSONValue
    where Root == Configuration {
        var scratch = Configuration()
        guard let value = parseText(text), set(&scratch, value) else {
            let got = isSecret ? "" : ", got \"\(text)\""
            throw ConfigurationError("\(origin) must be \(acceptedText)\(got)")
        }
        return value
    }

    /// Declares the key `name`, bound to `keyPath`.
    static func key<Value>(
        _ name: String,
        _ keyPath: any WritableKeyPath<Root, Value> & Sendable,
        _ type: ConfigurationValueType<Value>,
        _ doc: String,
        environment: String? = nil,
        flag: ConfigurationFlag? = nil,
        secret: Bool = false
    ) -> Self {
        Self(
            name: name,
            doc: doc,
            accepted: type.accepted,
            acceptedText: type.acceptedText,
            environment: environment,
            flag: flag,
            path: type.path,
            isSecret: secret,
            redact: type.redact,
            section: nil,
            get: { root in type.encode(root[keyPath: keyPath]) },
            set: { root, value in
                guard let decoded = type.decode(value) else { return false }
                root[keyPath: keyPath] = decoded
                return true
            },
            parseText: type.parseText,
            createSection: { _ in }
        )
    }

    /// This key of an optional section, as a key of `Parent` named `section.name`.
    func inSection<Parent>(_ section: String, _ keyPath: any WritableKeyPath<Parent, Root?> & Sendable) -> ConfigurationKey<Parent>
    where Root: OptionalSection {
        let get = self.get
        let set = self.set
        return ConfigurationKey<Parent>(
            name: "\(section).\(name)",
            doc: doc,
            accepted: accepted,
            acceptedText: acceptedText,
            environment: environment,
            flag: flag,
            path: path,
            isSecret: isSecret,
            redact: redact,
            section: section,
            get: { parent in parent[keyPath: keyPath].flatMap(get) },
            set: { parent, value in
                var members = parent[keyPath: keyPath] ?? Root()
                guard set(&members, value) else { return false }
                parent[keyPath: keyPath] = members
                return true
            },
            parseText: parseText,
            createSection: { parent in
                if parent[keyPath: keyPath] == nil { parent[keyPath: keyPath] = Root() }
            }
        )
    }
}
