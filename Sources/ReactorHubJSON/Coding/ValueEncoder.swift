/// The `Encoder` behind `JSONValueEncoder`: one instance per nested value being encoded.
///
/// It records what its value asked for (nothing, a single value, an object or an array)
/// and holds the object or array being filled itself, so a struct of scalars costs one
/// encoder and one members array. `finish()` returns the `JSONValue`, or `nil` when the
/// value asked for no container, which the keyed container takes as "omit this member".
final class ValueEncoder: Encoder {
    enum Kind {
        case nothing
        case value
        case object
        case array
    }

    /// A nested container or super encoder handed out earlier, resolved by `finish()`.
    struct Pending {
        enum Slot {
            case member(String)
            case element(Int)
        }

        let slot: Slot
        let encoder: ValueEncoder
    }

    // The mutable state below is marked `@exclusivity(unchecked)`: an encoder belongs to
    // one value's `encode(to:)` on one thread, and each mutation is one statement whose
    // operands are computed before the access begins, so accesses never overlap; the
    // dynamic checks (a tenth of the encoding time) would only ever pass.
    private let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    /// Unowned: a finished child kept as `spare` would otherwise hold its parent (and the
    /// whole object being built) in a cycle, leaking every encoded state.
    private unowned let parent: ValueEncoder?
    @exclusivity(unchecked) private var key: (any CodingKey)?
    @exclusivity(unchecked) private(set) var kind = Kind.nothing
    @exclusivity(unchecked) var value = JSONValue.null
    @exclusivity(unchecked) var object = JSONObject()
    @exclusivity(unchecked) var elements: [JSONValue] = []
    @exclusivity(unchecked) var pending: [Pending] = []
    /// A finished child encoder nobody else holds, reused for the next nested value
    /// (encoding an array of structs then allocates one encoder, not one per element).
    @exclusivity(unchecked) private var spare: ValueEncoder?

    init(userInfo: [CodingUserInfoKey: any Sendable], parent: ValueEncoder?, key: (any CodingKey)?) {
        self.sendableUserInfo = userInfo
        self.parent = parent
        self.key = key
    }

    /// Converted on access only: most values never look at it.
    var userInfo: [CodingUserInfoKey: Any] {
        if sendableUserInfo.isEmpty { return [:] }
        return sendableUserInfo
    }

    /// Built on demand (it is only needed for errors and by the rare value that asks).
    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var encoder: ValueEncoder? = self
        while let current = encoder, let key = current.key {
            path.append(key)
            encoder = current.parent
        }
        return path.reversed()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if kind != .object {
            kind = .object
            object.reserveCapacity(4)
        }
        return KeyedEncodingContainer(KeyedValueEncodingContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        kind = .array
        return UnkeyedValueEncodingContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueEncodingContainerImpl(encoder: self)
    }

    func store(_ value: JSONValue) {
        kind = .value
        self.value = value
    }

    /// A child encoder for a nested container or super encoder, placed at `slot` when
    /// this encoder finishes; `kind` is what the child was opened as.
    func makePending(at slot: Pending.Slot, key: any CodingKey, kind: Kind) -> ValueEncoder {
        let child = ValueEncoder(userInfo: sendableUserInfo, parent: self, key: key)
        child.kind = kind
        pending.append(Pending(slot: slot, encoder: child))
        return child
    }

    /// The encoded value, or `nil` when nothing was asked for.
    func finish() -> JSONValue? {
        for item in pending {
            let resolved = item.encoder.finish() ?? .object([:])
            switch item.slot {
            case .member(let name): object.updateValue(resolved, forKey: name)
            case .element(let index): elements[index] = resolved
            }
        }
        pending.removeAll()
        switch kind {
        case .nothing: return nil
        case .value: return value
        case .object: return .object(object)
        case .array: return .array(elements)
        }
    }

    /// Encodes a nested value; `nil` when it encoded nothing.
    func encodeNested<Value: Encodable>(_ value: Value, key: any CodingKey) throws -> JSONValue? {
        if let encoded = try encodeDirectly(value, key: key) {
            return encoded
        }
        var child: ValueEncoder
        if let reusable = spare {
            spare = nil
            reusable.key = key
            child = reusable
        } else {
            child = ValueEncoder(userInfo: sendableUserInfo, parent: self, key: key)
        }
        try value.encode(to: child)
        let result = child.finish()
        if isKnownUniquelyReferenced(&child) {
            child.reset()
            spare = child
        }
        return result
    }

    /// Back to the state of a new encoder, keeping nothing of the value it encoded.
    private func reset() {
        kind = .nothing
        value = .null
        object = JSONObject()
        elements = []
    }

    /// The value of the types that need no nested encoder, `nil` for other types.
    ///
    /// `JSONValue`, `JSONObject` and the common scalars: generic code such as
    /// `Array.encode(to:)` reaches them through the generic `encode(_:)`.
    func encodeDirectly<Value: Encodable>(_ value: Value, key: (any CodingKey)?) throws -> JSONValue? {
        if Value.self == JSONValue.self {
            return sameTypeCast(value, to: JSONValue.self)
        } else if Value.self == JSONObject.self {
            return .object(sameTypeCast(value, to: JSONObject.self))
        } else if Value.self == String.self {
            return .string(sameTypeCast(value, to: String.self))
        } else if Value.self == Int.self {
            return .int(sameTypeCast(value, to: Int.self))
        } else if Value.self == Bool.self {
            return .bool(sameTypeCast(value, to: Bool.self))
        } else if Value.self == Double.self {
            return try encodeDouble(sameTypeCast(value, to: Double.self), key: key)
        }
        return nil
    }

    /// A double as `.double`, refusing NaN and infinities, which JSON cannot represent.
    func encodeDouble(_ value: Double, key: (any CodingKey)?) throws -> JSONValue {
        guard value.isFinite else {
            var path = codingPath
            if let key { path.append(key) }
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: path, debugDescription: "Unable to encode Double.\(value) in JSON: only finite numbers are valid.")
            )
        }
        return .double(value)
    }

    /// An integer exactly when it fits an `Int`, else the nearest double.
    func encodeInteger<Integer: BinaryInteger>(_ value: Integer, key: (any CodingKey)?) throws -> JSONValue {
        if let exact = Int(exactly: value) {
            return .int(exact)
        }
        return try encodeDouble(Double(value), key: key)
    }
}
