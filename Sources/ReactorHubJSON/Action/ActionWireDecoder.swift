/// Presents a wire action (`type` plus members) to a synthesized enum `init(from:)` as
/// the `{"type":{members…}}` shape it expects, and remembers which members it read.
final class ActionWireDecoder: Decoder {
    let name: String
    let members: ActionMembers
    let userInfo: [CodingUserInfoKey: Any]
    let codingPath: [any CodingKey] = []
    /// Which of `members` the initializer asked for, by position (a bit each for the first
    /// 64; the names of later ones, in the rare action written with more).
    private var readPositions: UInt64 = 0
    private var readBeyond: [String] = []
    /// Whether the type read itself as one string (a raw-value enum) instead of by case.
    private var readAsString = false

    init(name: String, members: ActionMembers, userInfo: [CodingUserInfoKey: Any]) {
        self.name = name
        self.members = members
        self.userInfo = userInfo
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let key = Key(stringValue: name) else {
            let available = CodingKeyCases.all(of: Key.self)?.map(\.stringValue) ?? []
            throw ActionDecodingError(action: name, problem: .unknownAction(available: available))
        }
        return KeyedDecodingContainer(ActionCaseContainer(decoder: self, key: key))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw ActionDecodingError(action: name, problem: .rejected(reason: "this action type cannot be read from the wire"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        readAsString = true
        return ActionNameContainer(decoder: self)
    }

    func markRead(_ wireName: String) {
        for index in 0..<members.count where members.name(at: index) == wireName {
            if index < 64 {
                readPositions |= 1 << UInt64(index)
            } else if !readBeyond.contains(wireName) {
                readBeyond.append(wireName)
            }
        }
    }

    /// The first member other than `type` that the initializer never asked for.
    var firstUnreadMember: String? {
        for index in 0..<members.count {
            let name = members.name(at: index)
            let read = index < 64 ? readPositions & (1 << UInt64(index)) != 0 : readBeyond.contains(name)
            if !read, name != "type" { return name }
        }
        return nil
    }

    /// Turns an error thrown by the action's initializer into an `ActionDecodingError`.
    func translate(_ error: any Error, for type: Any.Type) -> ActionDecodingError {
        if readAsString, case DecodingError.dataCorrupted? = error as? DecodingError {
            // A raw-value enum that has no case with this raw value.
            return ActionDecodingError(action: name, problem: .unknownAction(available: Self.rawCaseNames(of: type)))
        }
        if let decodingError = error as? DecodingError {
            return ActionDecodingError(action: name, problem: .rejected(reason: decodingError.summary))
        }
        return ActionDecodingError(action: name, problem: .rejected(reason: "\(error)"))
    }

    private static func rawCaseNames(of type: Any.Type) -> [String] {
        guard let iterable = type as? any CaseIterable.Type else { return [] }
        return rawNames(iterable)
    }

    private static func rawNames<Iterable: CaseIterable>(_ type: Iterable.Type) -> [String] {
        type.allCases.compactMap { ($0 as? any RawRepresentable)?.rawValue as? String }
    }
}

/// The enum's top-level container: exactly one key, the action's name.
private struct ActionCaseContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ActionWireDecoder
    let key: Key

    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [key] }

    func contains(_ key: Key) -> Bool { key.stringValue == self.key.stringValue }
    func decodeNil(forKey key: Key) throws -> Bool { false }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        throw unsupported()
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(ActionMembersContainer<NestedKey>(decoder: decoder))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw unsupported()
    }

    func superDecoder() throws -> any Decoder {
        throw unsupported()
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw unsupported()
    }

    private func unsupported() -> ActionDecodingError {
        ActionDecodingError(action: decoder.name, problem: .rejected(reason: "this action type cannot be read from the wire"))
    }
}

/// The action's name as a single string, for raw-value enums.
private struct ActionNameContainer: SingleValueDecodingContainer {
    let decoder: ActionWireDecoder
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool { false }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        guard let name = decoder.name as? Value else {
            throw ActionDecodingError(action: decoder.name, problem: .rejected(reason: "this action type cannot be read from the wire"))
        }
        return name
    }
}

extension DecodingError {
    /// The error's description with the coding path in front: `ops[2].x: Expected …`.
    var summary: String {
        let context: Context
        switch self {
        case .typeMismatch(_, let value), .valueNotFound(_, let value), .dataCorrupted(let value):
            context = value
        case .keyNotFound(let key, let value):
            context = Context(codingPath: value.codingPath + [key], debugDescription: value.debugDescription)
        @unknown default:
            return "\(self)"
        }
        let path = Self.render(context.codingPath)
        return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
    }

    static func render(_ path: some Collection<any CodingKey>) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}
