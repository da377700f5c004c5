/// Makes a plausible value of any `Decodable` type out of nothing, so that a synthesized
/// `init(from:)` being probed for its schema can run to its end.
///
/// Scalars are zero or empty, optionals `nil`, arrays empty, `CaseIterable` types their
/// first case, other types decode themselves from a decoder that answers the same way.
/// Types that refuse such values (a `String` raw-value enum that is not `CaseIterable`)
/// throw, and the probe stops there.
final class PlaceholderDecoder: Decoder {
    let depth: Int
    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]

    init(depth: Int) {
        self.depth = depth
    }

    struct TooDeep: Error {}

    static func placeholder<Value: Decodable>(_ type: Value.Type, depth: Int) throws -> Value {
        if let scalar = scalar(type) as? Value {
            return scalar
        }
        if let iterable = type as? any CaseIterable.Type, let first = firstCase(of: iterable) as? Value {
            return first
        }
        guard depth < 8 else { throw TooDeep() }
        return try Value(from: PlaceholderDecoder(depth: depth + 1))
    }

    private static func firstCase<Iterable: CaseIterable>(of type: Iterable.Type) -> Any? {
        type.allCases.first
    }

    private static func scalar(_ type: Any.Type) -> Any? {
        switch type {
        case is String.Type: ""
        case is Bool.Type: false
        case is Int.Type: 0 as Int
        case is Int8.Type: 0 as Int8
        case is Int16.Type: 0 as Int16
        case is Int32.Type: 0 as Int32
        case is Int64.Type: 0 as Int64
        case is UInt.Type: 0 as UInt
        case is UInt8.Type: 0 as UInt8
        case is UInt16.Type: 0 as UInt16
        case is UInt32.Type: 0 as UInt32
        case is UInt64.Type: 0 as UInt64
        case is Double.Type: 0 as Double
        case is Float.Type: 0 as Float
        case is JSONValue.Type: JSONValue.null
        case is JSONObject.Type: JSONObject()
        default: nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(PlaceholderKeyedContainer<Key>(depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        PlaceholderUnkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        PlaceholderSingleValueContainer(depth: depth)
    }
}

/// An object with no optional members present; an enum's first case is its only key.
private struct PlaceholderKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        CodingKeyCases.all(of: Key.self)?.first.map { [$0] } ?? []
    }

    func contains(_ key: Key) -> Bool { false }
    func decodeNil(forKey key: Key) throws -> Bool { true }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try PlaceholderDecoder.placeholder(type, depth: depth)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(PlaceholderKeyedContainer<NestedKey>(depth: depth))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        PlaceholderUnkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try superDecoder(forKey: nil)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(forKey: nil)
    }

    private func superDecoder(forKey key: Key?) throws -> any Decoder {
        throw PlaceholderDecoder.TooDeep()
    }
}

/// An empty array.
private struct PlaceholderUnkeyedContainer: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    mutating func decodeNil() throws -> Bool { true }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: [], debugDescription: "placeholder array is empty"))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw PlaceholderDecoder.TooDeep()
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw PlaceholderDecoder.TooDeep()
    }

    mutating func superDecoder() throws -> any Decoder {
        throw PlaceholderDecoder.TooDeep()
    }
}

/// `null` when asked, else a placeholder of the requested type.
private struct PlaceholderSingleValueContainer: SingleValueDecodingContainer {
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { true }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try PlaceholderDecoder.placeholder(type, depth: depth)
    }
}
