/// Writes the members of an object; a member that encodes nothing is left out.
struct KeyedValueEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws {
        set(.null, forKey: key.stringValue)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        set(.bool(value), forKey: key.stringValue)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        set(.string(value), forKey: key.stringValue)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        set(try encoder.encodeDouble(value, key: key), forKey: key.stringValue)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(try encoder.encodeDouble(Double(value), key: key), forKey: key.stringValue)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        set(.int(value), forKey: key.stringValue)
    }

    mutating func encode(_ value: Int8, forKey key: Key) throws {
        set(.int(Int(value)), forKey: key.stringValue)
    }

    mutating func encode(_ value: Int16, forKey key: Key) throws {
        set(.int(Int(value)), forKey: key.stringValue)
    }

    mutating func encode(_ value: Int32, forKey key: Key) throws {
        set(.int(Int(value)), forKey: key.stringValue)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        set(try encoder.encodeInteger(value, key: key), forKey: key.stringValue)
    }

    mutating func encode(_ value: UInt, forKey key: Key) throws {
        set(try encoder.encodeInteger(value, key: key), forKey: key.stringValue)
    }

    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        set(.int(Int(value)), forKey: key.stringValue)
    }

    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        set(.int(Int(value)), forKey: key.stringValue)
    }

    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        set(.int(Int(value)), forKey: key.stringValue)
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        set(try encoder.encodeInteger(value, key: key), forKey: key.stringValue)
    }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        if let encoded = try encoder.encodeNested(value, key: key) {
            set(encoded, forKey: key.stringValue)
        }
    }

    private func set(_ value: JSONValue, forKey key: String) {
        encoder.object.updateValue(value, forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        set(.null, forKey: key.stringValue)
        let child = encoder.makePending(at: .member(key.stringValue), key: key, kind: .object)
        return KeyedEncodingContainer(KeyedValueEncodingContainer<NestedKey>(encoder: child))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        set(.null, forKey: key.stringValue)
        let child = encoder.makePending(at: .member(key.stringValue), key: key, kind: .array)
        return UnkeyedValueEncodingContainer(encoder: child)
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(key: JSONCodingKey(stringValue: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(key: key)
    }

    private func superEncoder(key: any CodingKey) -> any Encoder {
        set(.null, forKey: key.stringValue)
        return encoder.makePending(at: .member(key.stringValue), key: key, kind: .nothing)
    }
}
