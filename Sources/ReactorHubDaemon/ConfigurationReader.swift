import ReactorHubProtocol
import ReactorHubJSON

/// Reads a configuration file's JSON against `ConfigurationSchema`: every member is a key
/// (decoded into the configuration) or an object of keys (read in turn); anything else is
/// refused with one line that names it.
struct ConfigurationReader {
    /// Names the file in refusals.
    let source: String
    /// The keys the file set, in the file's order.
    private(set) var keysSet: [String] = []

    init(source: String) {
        self.source = source
    }

    /// Parses `bytes` and applies them over `configuration`.
    mutating func apply(_ bytes: [UInt8], to configuration: inout Configuration) throws(ConfigurationError) {
        let value: JSONValue
        do {
            value = try JSONParser().parse(bytes)
        } catch {
            throw ConfigurationError("\(source): not valid JSON: \(error.message)")
        }
        try read(value, object: "", into: &configuration)
    }

    private mutating func read(_ value: JSONValue, object: String, into configuration: inout Configuration)
        throws(ConfigurationError)
    {
        guard case .object(let members) = value else {
            let name = object.isEmpty ? "the configuration" : "'\(object)'"
            throw ConfigurationError("\(source): \(name) must be a JSON object, got \(value.kind.phrase)")
        }
        ConfigurationSchema.sectionsByName[object]?.keys.first?.createSection(&configuration)
        for (member, memberValue) in members {
            let name = object.isEmpty ? member : "\(object).\(member)"
            if let key = ConfigurationSchema.keysByName[name] {
                guard key.set(&configuration, memberValue) else {
                    let got = key.isSecret ? memberValue.kind.phrase : Self.describe(key.redact?(memberValue) ?? memberValue)
                    throw ConfigurationError("\(source): \(name) must be \(key.accepted), got \(got)")
                }
                keysSet.append(name)
            } else if ConfigurationSchema.objectNames.contains(name) {
                try read(memberValue, object: name, into: &configuration)
            } else if object == "reactors", Self.isKindName(member) {
                // A kind the embedder registers: its own options type decodes it then.
                guard case .object = memberValue else {
                    throw ConfigurationError("\(source): \(name) must be a JSON object (the kind's settings), got \(Self.describe(memberValue))")
                }
                configuration.reactors.custom[member] = memberValue
                keysSet.append(name)
            } else {
                throw unknown(name, in: object)
            }
        }
    }

    private func unknown(_ name: String, in object: String) -> ConfigurationError {
        let hint = ConfigurationSchema.suggestion(for: name).map { " (did you mean '\($0)'?)" } ?? ""
        let scope = object.isEmpty ? "at the top level" : "in '\(object)'"
        let accepted = ConfigurationSchema.members(of: object).joined(separator: ", ")
        return ConfigurationError("\(source): unknown key '\(name)'\(hint); keys accepted \(scope): \(accepted)")
    }

    /// `[a-z][a-z0-9-]{0,31}` (PROTOCOL.md "Names").
    static func isKindName(_ name: String) -> Bool {
        ReactorAddress.isValidKind(name)
    }

    /// A value as a refusal quotes it: strings and numbers as written, containers by kind.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(text)\""
        case .int(let number): String(number)
        case .double(let number): String(number)
        case .bool(let flag): String(flag)
        case .null: "null"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension Configuration {
    /// Applies a configuration file's text over `self`, paths as written; `source` names
    /// the file in refusals.
    public mutating func apply(fileContents bytes: [UInt8], source: String) throws(ConfigurationError) {
        var reader = ConfigurationReader(source: source)
        try reader.apply(bytes, to: &self)
    }
}
