import JSON

/// Reads one JSON object of the configuration file, key by key, checking types and ranges
/// and refusing keys it was not asked about.
struct ConfigurationReader {
    let object: JSONObject
    /// The dotted path of this object, e.g. `limits` or `reactors.counter`; empty at the top.
    let path: String
    let source: String
    private var known: [String] = []

    init(_ value: JSONValue, path: String, source: String) throws(ConfigurationError) {
        guard case .object(let object) = value else {
            let name = path.isEmpty ? "the configuration" : "'\(path)'"
            throw ConfigurationError("\(source): \(name) must be a JSON object, got \(value.kind.phrase)")
        }
        self.object = object
        self.path = path
        self.source = source
    }

    private func qualified(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    private func fail(_ key: String, _ expected: String, _ value: JSONValue) -> ConfigurationError {
        ConfigurationError("\(source): \(qualified(key)) must be \(expected), got \(Self.describe(value))")
    }

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

    mutating func integer(_ key: String, in range: ClosedRange<Int>, into target: inout Int) throws(ConfigurationError) {
        known.append(key)
        guard let value = object[key] else { return }
        let expected = "an integer from \(range.lowerBound) to \(range.upperBound)"
        guard case .int(let number) = value, range.contains(number) else { throw fail(key, expected, value) }
        target = number
    }

    mutating func string(_ key: String, nonEmpty: Bool = true, into target: inout String) throws(ConfigurationError) {
        known.append(key)
        guard let value = object[key] else { return }
        guard case .string(let text) = value, !nonEmpty || !text.isEmpty else {
            throw fail(key, "a non-empty string", value)
        }
        target = text
    }

    mutating func boolean(_ key: String, into target: inout Bool) throws(ConfigurationError) {
        known.append(key)
        guard let value = object[key] else { return }
        guard case .bool(let flag) = value else { throw fail(key, "true or false", value) }
        target = flag
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_ key: String, into target: inout T)
        throws(ConfigurationError) where T.RawValue == String
    {
        known.append(key)
        guard let value = object[key] else { return }
        let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard case .string(let text) = value, let chosen = T(rawValue: text) else {
            throw fail(key, "one of \(names)", value)
        }
        target = chosen
    }

    /// Reads the nested object `key` with `body`, when present.
    mutating func section(_ key: String, _ body: (inout ConfigurationReader) throws(ConfigurationError) -> Void)
        throws(ConfigurationError)
    {
        known.append(key)
        guard let value = object[key] else { return }
        var nested = try ConfigurationReader(value, path: qualified(key), source: source)
        try body(&nested)
        try nested.finish()
    }

    /// Refuses any key that no reader method asked for.
    func finish() throws(ConfigurationError) {
        for key in object.keys where !known.contains(key) {
            let scope = path.isEmpty ? "at the top level" : "in '\(path)'"
            throw ConfigurationError(
                "\(source): unknown key '\(qualified(key))'; keys accepted \(scope): \(known.joined(separator: ", "))"
            )
        }
    }
}
