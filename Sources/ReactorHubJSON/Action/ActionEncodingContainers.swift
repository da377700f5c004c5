/// The enum's top-level container: exactly one key, the case's name, whose nested
/// container holds the case's values.
struct ActionCaseEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ActionWireEncoder

    var codingPath: [any CodingKey] { [] }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        _ = encoder.openCase(key.stringValue)
        return KeyedEncodingContainer(ActionMembersEncodingContainer<NestedKey>(encoder: encoder))
    }

    mutating func encodeNil(forKey key: Key) throws { throw refused() }
    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws { throw refused() }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.refuse("an object that is not one enum case")
        return ValueEncoder(userInfo: [:], parent: nil, key: nil).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.refuse("an object that is not one enum case")
        return ValueEncoder(userInfo: [:], parent: nil, key: nil)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder()
    }

    private func refused() -> ActionEncodingError {
        encoder.refuse("an object that is not one enum case")
        return ActionEncodingError(action: nil, problem: .notAnAction(got: "an object that is not one enum case"))
    }
}

/// The values of one case, written as members under their wire names.
struct ActionMembersEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ActionWireEncoder

    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        try encoder.set(.null, forMember: ActionSchema.wireName(of: key))
    }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try encoder.encodeMember(value, as: ActionSchema.wireName(of: key))
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.pendingMember(ActionSchema.wireName(of: key), key: key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.pendingMember(ActionSchema.wireName(of: key), key: key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        encoder.pendingMember("super", key: JSONCodingKey(stringValue: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder.pendingMember(ActionSchema.wireName(of: key), key: key)
    }

    private func put<Value: Encodable>(_ value: Value, _ key: Key) throws {
        try encoder.encodeMember(value, as: ActionSchema.wireName(of: key))
    }
}

/// A raw-value enum's single value: its name as a bare string.
struct ActionNameEncodingContainer: SingleValueEncodingContainer {
    let encoder: ActionWireEncoder

    var codingPath: [any CodingKey] { [] }

    mutating func encode(_ value: String) throws {
        encoder.setBareName(value)
    }

    mutating func encodeNil() throws { throw refused("null") }
    mutating func encode(_ value: Bool) throws { throw refused("a boolean") }
    mutating func encode(_ value: Double) throws { throw refused("a number") }
    mutating func encode(_ value: Float) throws { throw refused("a number") }
    mutating func encode(_ value: Int) throws { throw refused("a number") }
    mutating func encode(_ value: Int8) throws { throw refused("a number") }
    mutating func encode(_ value: Int16) throws { throw refused("a number") }
    mutating func encode(_ value: Int32) throws { throw refused("a number") }
    mutating func encode(_ value: Int64) throws { throw refused("a number") }
    mutating func encode(_ value: UInt) throws { throw refused("a number") }
    mutating func encode(_ value: UInt8) throws { throw refused("a number") }
    mutating func encode(_ value: UInt16) throws { throw refused("a number") }
    mutating func encode(_ value: UInt32) throws { throw refused("a number") }
    mutating func encode(_ value: UInt64) throws { throw refused("a number") }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        if let text = value as? String {
            encoder.setBareName(text)
            return
        }
        // A wrapper that forwards to another value's encoding (a RawRepresentable's
        // raw value through a generic path): let it write into this encoder.
        try value.encode(to: encoder)
    }

    private func refused(_ got: String) -> ActionEncodingError {
        encoder.refuse(got)
        return ActionEncodingError(action: nil, problem: .notAnAction(got: got))
    }
}
