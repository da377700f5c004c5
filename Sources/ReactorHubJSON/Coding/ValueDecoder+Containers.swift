/// Reads the members of an object.
struct KeyedValueDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let object: JSONObject

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        object.compactMap { Key(stringValue: $0.key) }
    }

    func contains(_ key: Key) -> Bool {
        object.index(forKey: key.stringValue) != nil
    }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "No value associated with key '\(key.stringValue)'."
            ))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try member(key).isNull
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try decoder.decode(type, from: member(key), key: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decodeValue(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decodeValue(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decodeValue(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decodeValue(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decodeValue(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decodeValue(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decodeValue(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decodeValue(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decodeValue(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decodeValue(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decodeValue(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decodeValue(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decodeValue(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decodeValue(type, key) }

    private func decodeValue<Value: Decodable>(_ type: Value.Type, _ key: Key) throws -> Value {
        try decoder.decode(type, from: member(key), key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key], userInfo: decoder.userInfo)
            .container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: member(key), codingPath: codingPath + [key], userInfo: decoder.userInfo)
            .unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = JSONCodingKey(stringValue: "super")
        return ValueDecoder(value: object["super"] ?? .null, codingPath: codingPath + [key], userInfo: decoder.userInfo)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: object[key.stringValue] ?? .null, codingPath: codingPath + [key], userInfo: decoder.userInfo)
    }
}

/// Reads the elements of an array in order.
struct UnkeyedValueDecodingContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let elements: [JSONValue]
    private(set) var currentIndex = 0

    init(decoder: ValueDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentKey: ArrayIndexKey { ArrayIndexKey(currentIndex) }

    private func current(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: codingPath + [currentKey],
                debugDescription: "Unkeyed container is at end: the array has \(elements.count) elements."
            ))
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard try current(JSONValue.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let value = try decoder.decode(type, from: current(type), key: currentKey)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = try ValueDecoder(value: current(JSONObject.self), codingPath: codingPath + [currentKey], userInfo: decoder.userInfo)
            .container(keyedBy: type)
        currentIndex += 1
        return nested
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let nested = try ValueDecoder(value: current([JSONValue].self), codingPath: codingPath + [currentKey], userInfo: decoder.userInfo)
            .unkeyedContainer()
        currentIndex += 1
        return nested
    }

    mutating func superDecoder() throws -> any Decoder {
        let nested = ValueDecoder(value: try current(JSONValue.self), codingPath: codingPath + [currentKey], userInfo: decoder.userInfo)
        currentIndex += 1
        return nested
    }
}

/// Reads the decoder's value as one scalar or nested value.
struct SingleValueDecodingContainerImpl: SingleValueDecodingContainer {
    let decoder: ValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeFloat(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decodeFloat(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try decoder.decode(type)
    }
}
