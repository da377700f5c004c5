/// Encodes any `Encodable` value directly into a `JSONValue`, without text in between.
///
/// - Keyed members keep the order in which `encode(to:)` writes them (declaration order
///   for synthesized conformances).
/// - A member whose `encode(to:)` asks for no container at all is omitted from its
///   object. A property wrapper can thus report itself elsewhere (through `userInfo`) and
///   stay out of the encoded state; this is how `@Pulse` properties are left out.
/// - `nil` optionals are omitted by `encodeIfPresent` (what synthesized conformances use)
///   and written as `null` by an explicit `encodeNil`.
/// - `JSONValue` and `JSONObject` members are inserted as they are.
/// - NaN and infinite doubles throw `EncodingError.invalidValue`.
public struct JSONValueEncoder: Sendable {
    /// Values every nested encoder sees in its `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates an encoder.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Encodes `value`; throws `EncodingError` for non-finite doubles, for errors thrown by
    /// the value's `encode(to:)`, and when the value encodes nothing at all.
    public func encode<Value: Encodable>(_ value: Value) throws -> JSONValue {
        let encoder = ValueEncoder(userInfo: userInfo, parent: nil, key: nil)
        if let encoded = try encoder.encodeDirectly(value, key: nil) {
            return encoded
        }
        try value.encode(to: encoder)
        if let encoded = encoder.finish() {
            return encoded
        }
        throw EncodingError.invalidValue(
            value,
            EncodingError.Context(codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values.")
        )
    }
}
