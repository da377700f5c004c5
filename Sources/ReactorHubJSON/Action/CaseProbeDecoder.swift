/// Drives an enum's synthesized `init(from:)` to learn its cases and their members.
///
/// The synthesized initializer asks for a keyed container over its `CodingKeys`, reads
/// `allKeys` to find the one case present, then asks for that case's nested container and
/// decodes each associated value from it. In `.listCases` mode the probe enumerates the
/// `CodingKeys` and stops; in `.describe(caseIndex:)` it presents that one case and
/// records every member the initializer decodes, answering with placeholders so the
/// initializer runs on.
final class CaseProbeDecoder: Decoder {
    enum Mode {
        case listCases
        case describe(caseIndex: Int)
    }

    struct Finished: Error {}

    let mode: Mode
    var caseNames: [String] = []
    var members: [ActionSchema.Member] = []
    /// Whether the initializer opened the case's nested container, as a synthesized enum
    /// conformance does for every case (a struct's conformance never does).
    var enteredCase = false
    let codingPath: [any CodingKey] = []
    let userInfo: [CodingUserInfoKey: Any] = [:]

    init(mode: Mode) {
        self.mode = mode
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let cases = CodingKeyCases.all(of: Key.self) else { throw Finished() }
        switch mode {
        case .listCases:
            caseNames = cases.map(\.stringValue)
            throw Finished()
        case .describe(let index):
            guard cases.indices.contains(index) else { throw Finished() }
            return KeyedDecodingContainer(CaseProbeContainer(probe: self, key: cases[index]))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw Finished()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw Finished()
    }

    func record<Value: Decodable>(_ type: Value.Type, key: some CodingKey, optional: Bool) {
        var typeName = JSONTypeName.of(type)
        typeName.isOptional = typeName.isOptional || optional
        members.append(ActionSchema.Member(name: ActionSchema.wireName(of: key), type: typeName.schemaName))
    }
}

/// The enum's top-level container, holding the one case being described.
private struct CaseProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: CaseProbeDecoder
    let key: Key

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [key] }

    func contains(_ key: Key) -> Bool { key.stringValue == self.key.stringValue }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        throw CaseProbeDecoder.Finished()
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        probe.enteredCase = true
        return KeyedDecodingContainer(MemberProbeContainer<NestedKey>(probe: probe))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw CaseProbeDecoder.Finished()
    }

    func superDecoder() throws -> any Decoder {
        throw CaseProbeDecoder.Finished()
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw CaseProbeDecoder.Finished()
    }
}

/// A case's associated values: records each one decoded, answers with a placeholder.
private struct MemberProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: CaseProbeDecoder

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        probe.record(type, key: key, optional: false)
        return try PlaceholderDecoder.placeholder(type, depth: 0)
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        probe.record(type, key: key, optional: true)
        return nil
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeOptional(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeOptional(type, key) }

    private func decodeOptional<Value: Decodable>(_ type: Value.Type, _ key: Key) throws -> Value? {
        probe.record(type, key: key, optional: true)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        probe.members.append(ActionSchema.Member(name: ActionSchema.wireName(of: key), type: "object"))
        return try PlaceholderDecoder(depth: 1).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        probe.members.append(ActionSchema.Member(name: ActionSchema.wireName(of: key), type: "array"))
        return try PlaceholderDecoder(depth: 1).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        throw CaseProbeDecoder.Finished()
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw CaseProbeDecoder.Finished()
    }
}
