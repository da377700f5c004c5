/// The JSON type a `Decodable` type reads, as action schemas name it: `string`,
/// `integer`, `number`, `boolean`, `array`, `object`, or `any` for `JSONValue`.
///
/// Known scalar types are recognised directly; any other type is asked to decode itself
/// from a probe that stops at the first container or value it requests.
struct JSONTypeName: Sendable, Hashable {
    /// The JSON type's name.
    var name: String
    /// Whether `null` is accepted too (an `Optional`).
    var isOptional: Bool

    /// The schema form: the name, with `?` when optional (except for `any`, which includes null).
    var schemaName: String {
        isOptional && name != "any" ? name + "?" : name
    }

    /// "a string", "an integer", "any value"…, for messages.
    var phrase: String {
        let base: String
        switch name {
        case "integer": base = "an integer"
        case "array": base = "an array"
        case "object": base = "an object"
        case "any": return "any JSON value"
        default: base = "a \(name)"
        }
        return isOptional ? base + " or null" : base
    }

    static let any = JSONTypeName(name: "any", isOptional: false)

    static func of<Value: Decodable>(_ type: Value.Type, depth: Int = 0) -> JSONTypeName {
        if let known = scalar(type) {
            return JSONTypeName(name: known, isOptional: false)
        }
        guard depth < 8 else { return .any }
        let probe = TypeNameProbe(depth: depth)
        _ = try? Value(from: probe)
        guard let name = probe.name else { return .any }
        return JSONTypeName(name: name, isOptional: probe.acceptsNull)
    }

    private static func scalar(_ type: Any.Type) -> String? {
        switch type {
        case is String.Type: "string"
        case is Bool.Type: "boolean"
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
             is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type:
            "integer"
        case is Double.Type, is Float.Type: "number"
        case is JSONValue.Type: "any"
        case is JSONObject.Type: "object"
        default: nil
        }
    }
}

/// Stops a type's `init(from:)` as soon as it shows which JSON type it reads.
private struct ProbeFinished: Error {}

/// A decoder that records the first container a type asks for, then stops it.
private final class TypeNameProbe: Decoder {
    let depth: Int
    var name: String?
    var acceptsNull = false
    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]

    init(depth: Int) {
        self.depth = depth
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        name = "object"
        throw ProbeFinished()
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        name = "array"
        throw ProbeFinished()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueProbe(probe: self)
    }
}

/// Records the type of the single value (and whether `null` was checked for first).
private struct SingleValueProbe: SingleValueDecodingContainer {
    let probe: TypeNameProbe
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool {
        probe.acceptsNull = true
        return false
    }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let inner = JSONTypeName.of(type, depth: probe.depth + 1)
        probe.name = inner.name
        probe.acceptsNull = probe.acceptsNull || inner.isOptional
        throw ProbeFinished()
    }

    func decode(_ type: Bool.Type) throws -> Bool { try record("boolean") }
    func decode(_ type: String.Type) throws -> String { try record("string") }
    func decode(_ type: Double.Type) throws -> Double { try record("number") }
    func decode(_ type: Float.Type) throws -> Float { try record("number") }
    func decode(_ type: Int.Type) throws -> Int { try record("integer") }
    func decode(_ type: Int8.Type) throws -> Int8 { try record("integer") }
    func decode(_ type: Int16.Type) throws -> Int16 { try record("integer") }
    func decode(_ type: Int32.Type) throws -> Int32 { try record("integer") }
    func decode(_ type: Int64.Type) throws -> Int64 { try record("integer") }
    func decode(_ type: UInt.Type) throws -> UInt { try record("integer") }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try record("integer") }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try record("integer") }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try record("integer") }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try record("integer") }

    private func record<Value>(_ name: String) throws -> Value {
        probe.name = name
        throw ProbeFinished()
    }
}
