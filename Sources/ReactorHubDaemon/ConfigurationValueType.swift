import ReactorHubJSON

/// The values one configuration key accepts, and how they are read from JSON (the file)
/// or from text (environment and flags) and written back (`--print-config`).
struct ConfigurationValueType<Value>: Sendable {
    /// What is accepted, for refusals, `--help` and the README: "an integer from 0 to 65535".
    let accepted: String
    /// The value a JSON value stands for, or nil when it is not accepted.
    let decode: @Sendable (JSONValue) -> Value?
    /// The value as the file would spell it.
    let encode: @Sendable (Value) -> JSONValue
    /// The JSON value an environment variable's or a flag's text stands for; nil when the
    /// text cannot stand for one (the key then has no variable or flag).
    let parseText: @Sendable (String) -> JSONValue?
    /// Set for paths: how the path is resolved and what must be found there.
    let path: ConfigurationPathRule?
    /// What an environment variable's or a flag's text may be (no `null` there).
    let acceptedText: String
    /// The value with its secrets replaced by `"***"` (a value holding some, such as the
    /// webhooks' secrets), for `--print-config` and refusals; nil: nothing to hide.
    let redact: (@Sendable (JSONValue) -> JSONValue)?

    init(
        accepted: String,
        decode: @escaping @Sendable (JSONValue) -> Value?,
        encode: @escaping @Sendable (Value) -> JSONValue,
        parseText: @escaping @Sendable (String) -> JSONValue? = { .string($0) },
        path: ConfigurationPathRule? = nil,
        acceptedText: String? = nil,
        redact: (@Sendable (JSONValue) -> JSONValue)? = nil
    ) {
        self.redact = redact
        self.accepted = accepted
        self.decode = decode
        self.encode = encode
        self.parseText = parseText
        self.path = path
        self.acceptedText = acceptedText ?? accepted
    }
}

extension ConfigurationValueType where Value == Int {
    /// An integer in `range`.
    static func integer(_ range: ClosedRange<Int>) -> Self {
        Self(
            accepted: "an integer from \(range.lowerBound) to \(range.upperBound)",
            decode: { value in
                guard case .int(let number) = value, range.contains(number) else { return nil }
                return number
            },
            encode: { .int($0) },
            parseText: { Int($0).map(JSONValue.int) ?? .string($0) }
        )
    }
}

extension ConfigurationValueType where Value == Bool {
    /// `true` or `false`.
    static var boolean: Self {
        Self(
            accepted: "true or false",
            decode: { $0.boolValue },
            encode: { .bool($0) },
            parseText: { text in
                switch text {
                case "true": .bool(true)
                case "false": .bool(false)
                default: .string(text)
                }
            }
        )
    }
}

extension ConfigurationValueType where Value == String {
    /// A string of at least one character that satisfies `isValid`.
    static func text(_ accepted: String = "a non-empty string", where isValid: @escaping @Sendable (String) -> Bool = { _ in true }) -> Self {
        Self(
            accepted: accepted,
            decode: { value in
                guard case .string(let text) = value, !text.isEmpty, isValid(text) else { return nil }
                return text
            },
            encode: { .string($0) }
        )
    }

    /// A file or folder; relative paths are resolved as `rule` says.
    static func path(_ rule: ConfigurationPathRule) -> Self {
        let text = Self.text(rule.requirement.accepted)
        return Self(accepted: text.accepted, decode: text.decode, encode: text.encode, path: rule)
    }

    /// `"HOST:PORT"`, the port from 1 to 65535.
    static var hostAndPort: Self {
        text(#"a "HOST:PORT" string"#, where: isHostAndPort)
    }

    /// Whether `text` is `HOST:PORT` with a port from 1 to 65535.
    static func isHostAndPort(_ text: String) -> Bool {
        guard let colon = text.lastIndex(of: ":"), colon != text.startIndex,
              let port = Int(text[text.index(after: colon)...]) else { return false }
        return (1...65535).contains(port)
    }

    /// A URL path such as `/echo`.
    static var urlPath: Self {
        text(#"a URL path such as "/echo""#) { $0.count > 1 && $0.hasPrefix("/") && !$0.contains(" ") }
    }
}

extension ConfigurationValueType where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// One of the enumeration's raw values.
    static var choice: Self {
        Self(
            accepted: "one of " + Value.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "),
            decode: { value in value.stringValue.flatMap(Value.init(rawValue:)) },
            encode: { .string($0.rawValue) }
        )
    }
}

extension ConfigurationValueType where Value == [String] {
    /// An array of non-empty strings.
    static var texts: Self {
        Self(
            accepted: "an array of non-empty strings",
            decode: decodeTexts,
            encode: { .array($0.map(JSONValue.string)) },
            parseText: { _ in nil }
        )
    }

    /// An array of distinct `"HOST:PORT"` strings.
    static var hostAndPorts: Self {
        Self(
            accepted: #"an array of distinct "HOST:PORT" strings"#,
            decode: { value in
                guard let texts = decodeTexts(value), Set(texts).count == texts.count,
                      texts.allSatisfy(ConfigurationValueType<String>.isHostAndPort) else { return nil }
                return texts
            },
            encode: { .array($0.map(JSONValue.string)) },
            parseText: { _ in nil }
        )
    }

    static func decodeTexts(_ value: JSONValue) -> [String]? {
        guard case .array(let elements) = value else { return nil }
        var texts: [String] = []
        for element in elements {
            guard case .string(let text) = element, !text.isEmpty else { return nil }
            texts.append(text)
        }
        return texts
    }
}

extension ConfigurationValueType where Value == Configuration.Auth.Rights {
    /// `{"read": [PATTERN…], "act": [PATTERN…]}`; a missing member is empty.
    static var rights: Self {
        Self(
            accepted: #"an object {"read": [PATTERN…], "act": [PATTERN…]} of non-empty strings"#,
            decode: { value in
                guard case .object(let object) = value,
                      object.keys.allSatisfy({ $0 == "read" || $0 == "act" }) else { return nil }
                var rights = Configuration.Auth.Rights()
                if let read = object["read"] {
                    guard let patterns = ConfigurationValueType<[String]>.decodeTexts(read) else { return nil }
                    rights.read = patterns
                }
                if let act = object["act"] {
                    guard let patterns = ConfigurationValueType<[String]>.decodeTexts(act) else { return nil }
                    rights.act = patterns
                }
                return rights
            },
            encode: { rights in
                .object(["read": .array(rights.read.map(JSONValue.string)), "act": .array(rights.act.map(JSONValue.string))])
            },
            parseText: { _ in nil }
        )
    }
}

extension ConfigurationValueType {
    /// `wrapped`'s values, or `null`.
    static func optional<Wrapped>(_ wrapped: ConfigurationValueType<Wrapped>) -> Self where Value == Wrapped? {
        Self(
            accepted: "\(wrapped.accepted) or null",
            decode: { value -> Wrapped?? in
                if value.isNull { return .some(nil) }
                guard let unwrapped = wrapped.decode(value) else { return nil }
                return .some(unwrapped)
            },
            encode: { $0.map(wrapped.encode) ?? .null },
            parseText: wrapped.parseText,
            path: wrapped.path,
            acceptedText: wrapped.acceptedText
        )
    }
}
