import ReactorHubJSON

/// A kind's settings under `reactors.KIND`: `init()` gives the defaults, and the file's
/// object overrides them member by member; `validate()` refuses values the kind cannot
/// run with, so that the daemon exits at start (status 2) naming the key, rather than
/// trapping later in `reduce`.
///
/// ```swift
/// struct PollSettings: KindSettings {
///     var maxOptions = 8
///     var closeAfterSeconds = 300
///
///     func validate() throws(KindSettingsError) {
///         guard maxOptions >= 2 else { throw KindSettingsError(key: "maxOptions", "must be at least 2, got \(maxOptions)") }
///     }
/// }
/// ```
public protocol KindSettings: Codable, Sendable {
    /// The defaults.
    init()

    /// Refuses settings the kind cannot run with: throw `KindSettingsError(key:_:)` naming
    /// the member; the start's message names it under `reactors.KIND`. By default every
    /// value of the right type is accepted.
    func validate() throws(KindSettingsError)
}

extension KindSettings {
    /// Every value of the right type is accepted.
    public func validate() throws(KindSettingsError) {}
}

/// Why a kind or its settings were refused at start: one sentence naming the key.
public struct KindSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sentence.
    public var message: String
    /// The member of the kind's settings it is about (`maxMessages`), when it is about one;
    /// the start's message puts it under `reactors.KIND`.
    public var key: String?

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// An error about the member `key` (`"maxMessages"`): `message` says what is wrong and
    /// what is accepted ("must be at least 1, got 0").
    public init(key: String, _ message: String) {
        self.message = message
        self.key = key
    }

    public var description: String { message }
}

extension KindSettings {
    /// The defaults overridden by `object` (nil: the defaults). Refuses a key the type does
    /// not have (found by encoding the result back: a member the type did not take does
    /// not come back) and a value of the wrong type, naming the key under `path`.
    static func decode(_ object: JSONValue?, path: String) throws(KindSettingsError) -> Self {
        let defaults: JSONValue
        do {
            defaults = try JSONValueEncoder().encode(Self())
        } catch {
            throw KindSettingsError("\(path): the defaults of \(Self.self) do not encode: \(error)")
        }
        guard let object else {
            let value = Self()
            try value.checked(path: path)
            return value
        }
        let merged = Self.merge(object, over: defaults)
        let value: Self
        do {
            value = try JSONValueDecoder().decode(Self.self, from: merged)
        } catch let error as DecodingError {
            throw KindSettingsError("\(path).\(Self.describe(error))")
        } catch {
            throw KindSettingsError("\(path): \(error)")
        }
        let taken = (try? JSONValueEncoder().encode(value)) ?? defaults
        if let unknown = Self.firstUnknownKey(in: object, comparedTo: taken) {
            let accepted = taken.objectValue.map { $0.keys.sorted().joined(separator: ", ") } ?? ""
            throw KindSettingsError("\(path): unknown key '\(path).\(unknown)'; keys accepted: \(accepted)")
        }
        try value.checked(path: path)
        return value
    }

    /// `validate()`, its refusal named under `path` (`reactors.chat.maxMessages must be …`).
    func checked(path: String) throws(KindSettingsError) {
        do {
            try validate()
        } catch {
            if let key = error.key {
                throw KindSettingsError("\(path).\(key) \(error.message)")
            }
            throw KindSettingsError("\(path): \(error.message)")
        }
    }

    private static func merge(_ overlay: JSONValue, over base: JSONValue) -> JSONValue {
        guard case .object(let top) = overlay, case .object(var result) = base else { return overlay }
        for (key, value) in top {
            result[key] = result[key].map { merge(value, over: $0) } ?? value
        }
        return .object(result)
    }

    private static func firstUnknownKey(in given: JSONValue, comparedTo taken: JSONValue, prefix: String = "") -> String? {
        guard case .object(let object) = given, case .object(let known) = taken else { return nil }
        for (key, value) in object {
            guard let inner = known[key] else { return prefix + key }
            if let nested = firstUnknownKey(in: value, comparedTo: inner, prefix: prefix + key + ".") {
                return nested
            }
        }
        return nil
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context).isEmpty ? "" : path(context) + ".")\(key.stringValue): missing"
        @unknown default:
            return "\(error)"
        }
    }
}
