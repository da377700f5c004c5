/// Appends the elements of an array; an element that encodes nothing becomes `{}`, as
/// with Foundation's `JSONEncoder`, so positions never shift.
struct UnkeyedValueEncodingContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.elements.count }

    private var nextKey: ArrayIndexKey { ArrayIndexKey(encoder.elements.count) }

    mutating func encodeNil() throws { encoder.elements.append(.null) }
    mutating func encode(_ value: Bool) throws { encoder.elements.append(.bool(value)) }
    mutating func encode(_ value: String) throws { encoder.elements.append(.string(value)) }
    mutating func encode(_ value: Double) throws { encoder.elements.append(try encoder.encodeDouble(value, key: nextKey)) }
    mutating func encode(_ value: Float) throws { encoder.elements.append(try encoder.encodeDouble(Double(value), key: nextKey)) }
    mutating func encode(_ value: Int) throws { encoder.elements.append(.int(value)) }
    mutating func encode(_ value: Int8) throws { encoder.elements.append(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { encoder.elements.append(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { encoder.elements.append(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { encoder.elements.append(try encoder.encodeInteger(value, key: nextKey)) }
    mutating func encode(_ value: UInt) throws { encoder.elements.append(try encoder.encodeInteger(value, key: nextKey)) }
    mutating func encode(_ value: UInt8) throws { encoder.elements.append(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { encoder.elements.append(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { encoder.elements.append(.int(Int(value))) }
    mutating func encode(_ value: UInt64) throws { encoder.elements.append(try encoder.encodeInteger(value, key: nextKey)) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        let encoded = try encoder.encodeNested(value, key: nextKey)
        encoder.elements.append(encoded ?? .object([:]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = encoder.makePending(at: .element(encoder.elements.count), key: nextKey, kind: .object)
        encoder.elements.append(.null)
        return KeyedEncodingContainer(KeyedValueEncodingContainer<NestedKey>(encoder: child))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = encoder.makePending(at: .element(encoder.elements.count), key: nextKey, kind: .array)
        encoder.elements.append(.null)
        return UnkeyedValueEncodingContainer(encoder: child)
    }

    mutating func superEncoder() -> any Encoder {
        let child = encoder.makePending(at: .element(encoder.elements.count), key: nextKey, kind: .nothing)
        encoder.elements.append(.null)
        return child
    }
}

/// Records the single value a value encodes itself as.
struct SingleValueEncodingContainerImpl: SingleValueEncodingContainer {
    let encoder: ValueEncoder

    var codingPath: [any CodingKey] { encoder.codingPath }

    private func store(_ value: JSONValue) {
        encoder.store(value)
    }

    mutating func encodeNil() throws { store(.null) }
    mutating func encode(_ value: Bool) throws { store(.bool(value)) }
    mutating func encode(_ value: String) throws { store(.string(value)) }
    mutating func encode(_ value: Double) throws { store(try encoder.encodeDouble(value, key: nil)) }
    mutating func encode(_ value: Float) throws { store(try encoder.encodeDouble(Double(value), key: nil)) }
    mutating func encode(_ value: Int) throws { store(.int(value)) }
    mutating func encode(_ value: Int8) throws { store(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { store(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { store(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { store(try encoder.encodeInteger(value, key: nil)) }
    mutating func encode(_ value: UInt) throws { store(try encoder.encodeInteger(value, key: nil)) }
    mutating func encode(_ value: UInt8) throws { store(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { store(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { store(.int(Int(value))) }
    mutating func encode(_ value: UInt64) throws { store(try encoder.encodeInteger(value, key: nil)) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        if let direct = try encoder.encodeDirectly(value, key: nil) {
            store(direct)
            return
        }
        // The value encodes itself through this same encoder (as Foundation's does), so a
        // wrapper type's single value is its wrapped value.
        try value.encode(to: encoder)
    }
}
