/// Decodes any `Decodable` value from a `JSONValue`, e.g. to restore a persisted state.
///
/// Errors are `DecodingError`s with the coding path of the offending value. Integer
/// types accept integers and doubles with an exact integral value in their range;
/// floating-point types accept any number; `JSONValue` members are taken as they are.
public struct JSONValueDecoder: Sendable {
    /// Values every nested decoder sees in its `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Decodes a value of type `type` from `value`.
    public func decode<Value: Decodable>(_ type: Value.Type, from value: JSONValue) throws -> Value {
        try ValueDecoder(value: value, codingPath: [], userInfo: userInfo).decode(type)
    }
}

/// The `Decoder` behind `JSONValueDecoder`, over one value at one coding path.
final class ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let userInfo: [CodingUserInfoKey: Any]

    init(value: JSONValue, codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: Any]) {
        self.value = value
        self.codingPath = codingPath
        self.userInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw typeMismatch([String: JSONValue].self, expected: "an object")
        }
        return KeyedDecodingContainer(KeyedValueDecodingContainer<Key>(decoder: self, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw typeMismatch([JSONValue].self, expected: "an array")
        }
        return UnkeyedValueDecodingContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueDecodingContainerImpl(decoder: self)
    }

    /// Decodes this decoder's value as `type`, without a nested decoder for scalars.
    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        if let scalar: Value = try decodeScalar(type) {
            return scalar
        }
        return try Value(from: self)
    }

    /// Decodes `child`, found at `key`, as `type`.
    func decode<Value: Decodable>(_ type: Value.Type, from child: JSONValue, key: any CodingKey) throws -> Value {
        try ValueDecoder(value: child, codingPath: codingPath + [key], userInfo: userInfo).decode(type)
    }

    /// `JSONValue` and the common scalars, read directly; `nil` for other types.
    private func decodeScalar<Value>(_ type: Value.Type) throws -> Value? {
        if Value.self == JSONValue.self {
            return sameTypeCast(value, to: Value.self)
        } else if Value.self == String.self {
            return sameTypeCast(try decodeString(), to: Value.self)
        } else if Value.self == Int.self {
            return sameTypeCast(try decodeInteger(Int.self), to: Value.self)
        } else if Value.self == Bool.self {
            return sameTypeCast(try decodeBool(), to: Value.self)
        } else if Value.self == Double.self {
            return sameTypeCast(try decodeFloat(Double.self), to: Value.self)
        }
        return nil
    }

    func decodeBool() throws -> Bool {
        guard case .bool(let flag) = value else { throw typeMismatch(Bool.self, expected: "a boolean") }
        return flag
    }

    func decodeString() throws -> String {
        guard case .string(let text) = value else { throw typeMismatch(String.self, expected: "a string") }
        return text
    }

    func decodeInteger<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        switch value {
        case .int(let number):
            if let exact = Integer(exactly: number) { return exact }
        case .double(let number):
            if let exact = Integer(exactly: number) { return exact }
            if number.rounded(.towardZero) != number {
                throw typeMismatch(type, expected: "an integer")
            }
        default:
            throw typeMismatch(type, expected: "an integer")
        }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: codingPath,
            debugDescription: "Number \(value) does not fit in \(Integer.self)."
        ))
    }

    func decodeFloat<Float: BinaryFloatingPoint>(_ type: Float.Type) throws -> Float {
        let result: Float
        switch value {
        case .int(let number): result = Float(number)
        case .double(let number): result = Float(number)
        default: throw typeMismatch(type, expected: "a number")
        }
        guard result.isFinite else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "Number \(value) does not fit in \(Float.self)."
            ))
        }
        return result
    }

    /// A type mismatch naming what was expected and what the JSON holds.
    func typeMismatch(_ type: Any.Type, expected: String) -> DecodingError {
        DecodingError.typeMismatch(type, DecodingError.Context(
            codingPath: codingPath,
            debugDescription: "Expected \(expected) but found \(value.kind.phrase) instead."
        ))
    }
}
