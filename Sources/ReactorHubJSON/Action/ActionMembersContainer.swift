/// A wire action's members, read by the case's coding keys (`_0` is `value` for a case
/// with one unlabeled value). Every failure is an `ActionDecodingError` naming the member.
struct ActionMembersContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ActionWireDecoder

    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        (0..<decoder.members.count).compactMap { index in
            let name = decoder.members.name(at: index)
            // A repeated key (the bytes form lists each time it was written) counts once.
            let repeated = (0..<index).contains { JSONObject.sameKey(decoder.members.name(at: $0), name) }
            return name == "type" || repeated ? nil : ActionSchema.key(forWireName: name, as: Key.self)
        }
    }

    func contains(_ key: Key) -> Bool {
        let name = ActionSchema.wireName(of: key)
        decoder.markRead(name)
        return decoder.members.value(name) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let name = ActionSchema.wireName(of: key)
        decoder.markRead(name)
        return decoder.members.value(name)?.isNull ?? true
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        let value = try member(key, expected: { JSONTypeName.of(type) })
        if let scalar = Self.scalar(type, from: value.json) {
            return scalar
        }
        do {
            return try ValueDecoder(value: value.json, codingPath: [key], userInfo: decoder.userInfo).decode(type)
        } catch {
            throw translate(error, member: value.name, json: value.json, expected: { JSONTypeName.of(type) })
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let object = JSONTypeName(name: "object", isOptional: false)
        let value = try member(key, expected: { object })
        do {
            return try ValueDecoder(value: value.json, codingPath: [key], userInfo: decoder.userInfo).container(keyedBy: type)
        } catch {
            throw translate(error, member: value.name, json: value.json, expected: { object })
        }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let array = JSONTypeName(name: "array", isOptional: false)
        let value = try member(key, expected: { array })
        do {
            return try ValueDecoder(value: value.json, codingPath: [key], userInfo: decoder.userInfo).unkeyedContainer()
        } catch {
            throw translate(error, member: value.name, json: value.json, expected: { array })
        }
    }

    func superDecoder() throws -> any Decoder {
        throw ActionDecodingError(action: decoder.name, problem: .rejected(reason: "this action type cannot be read from the wire"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder()
    }

    /// The common member types read without a nested decoder; `nil` when the type is
    /// another one or the JSON does not match (the nested decoder then reports why).
    private static func scalar<Value>(_ type: Value.Type, from json: JSONValue) -> Value? {
        switch json {
        case .string(let text) where Value.self == String.self:
            sameTypeCast(text, to: Value.self)
        case .int(let number) where Value.self == Int.self:
            sameTypeCast(number, to: Value.self)
        case .bool(let flag) where Value.self == Bool.self:
            sameTypeCast(flag, to: Value.self)
        case _ where Value.self == JSONValue.self:
            sameTypeCast(json, to: Value.self)
        default:
            nil
        }
    }

    /// The member's wire name and value; throws `missingMember` when it is absent.
    private func member(_ key: Key, expected: () -> JSONTypeName) throws(ActionDecodingError) -> (name: String, json: JSONValue) {
        let name = ActionSchema.wireName(of: key)
        decoder.markRead(name)
        guard let value = decoder.members.value(name) else {
            throw ActionDecodingError(action: decoder.name, problem: .missingMember(member: name, expected: expected().schemaName))
        }
        return (name, value)
    }

    /// Names the member in a decoding error: a wrong JSON type at the member itself is
    /// `wrongMemberType`; anything deeper or subtler is `invalidMember` with the path.
    private func translate(_ error: any Error, member: String, json: JSONValue, expected: () -> JSONTypeName) -> ActionDecodingError {
        guard let error = error as? DecodingError else {
            return ActionDecodingError(action: decoder.name, problem: .invalidMember(member: member, reason: "\(error)"))
        }
        if case .typeMismatch(_, let context) = error, context.codingPath.count <= 1 {
            let expectedType = expected()
            var got = json.kind.phrase
            if expectedType.name == "integer", case .double = json {
                got = "a number with a fraction"
            }
            return ActionDecodingError(
                action: decoder.name,
                problem: .wrongMemberType(member: member, expected: expectedType.schemaName, got: got)
            )
        }
        if case .dataCorrupted(let context) = error, context.codingPath.count <= 1 {
            return ActionDecodingError(action: decoder.name, problem: .invalidMember(member: member, reason: context.debugDescription))
        }
        return ActionDecodingError(action: decoder.name, problem: .invalidMember(member: member, reason: error.summary))
    }
}
