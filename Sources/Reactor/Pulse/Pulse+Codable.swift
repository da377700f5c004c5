/// A pulse encodes as its bare value, except under a `PulseRecorder`: it then reports itself to
/// the recorder and encodes nothing (no container), so encoders that omit empty members leave
/// it out of the state.
extension Pulse: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        if let recorder = encoder.userInfo[PulseRecorder.userInfoKey] as? PulseRecorder {
            let name = encoder.codingPath.last?.stringValue ?? ""
            recorder.record(name: name, updateCount: valueUpdatedCount, value: RecordedPulseValue(value))
            return
        }
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// A pulse decodes from its bare value, as one that has not fired yet; or, when the
/// decoder carries a `PulseSource` that knows it, with the source's count and value.
extension Pulse: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        if let source = decoder.userInfo[PulseSource.userInfoKey] as? PulseSource,
           let name = decoder.codingPath.last?.stringValue,
           let fired = source[name]
        {
            guard let value = try fired.decodeValue(Value.self) as? Value else {
                throw DecodingError.typeMismatch(Value.self, DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "the pulse source decoded a value that is not a \(Value.self)"
                ))
            }
            self.init(wrappedValue: value)
            valueUpdatedCount = fired.updateCount
            return
        }
        let container = try decoder.singleValueContainer()
        self.init(wrappedValue: try container.decode(Value.self))
    }
}

extension KeyedDecodingContainer {
    /// Decodes a pulse of an optional value, treating a missing key as `nil`.
    ///
    /// Synthesized `init(from:)` picks this overload for `@Pulse var alertMessage: String?`, so
    /// such a state decodes from JSON that carries no pulses (pulses are never in the state);
    /// a `PulseSource` in the decoder's `userInfo` still gives it its count and value.
    public func decode<Value: Decodable & ExpressibleByNilLiteral>(
        _ type: Pulse<Value>.Type,
        forKey key: Key
    ) throws -> Pulse<Value> {
        if let pulse = try decodeIfPresent(type, forKey: key) {
            return pulse
        }
        // Absent or null in the encoded state: a `PulseSource` may still know it.
        if let decoder = try? superDecoder(forKey: key), decoder.userInfo[PulseSource.userInfoKey] != nil {
            return try Pulse(from: decoder)
        }
        return Pulse(wrappedValue: nil)
    }
}

/// A pulse's value as handed to a `PulseRecorder`: encodes exactly as the value does.
///
/// `@unchecked Sendable` because Swift does not let `Pulse: Encodable` depend on `Value: Sendable`
/// (a conditional conformance cannot require a marker protocol). Pulses live in reactor states,
/// which are `Sendable`, and `Pulse` is `Sendable` only when its value is, so the values met
/// while encoding a state are sendable in practice.
struct RecordedPulseValue: Encodable, @unchecked Sendable, CustomStringConvertible {
    let base: any Encodable

    init(_ base: any Encodable) {
        self.base = base
    }

    func encode(to encoder: any Encoder) throws {
        // Through a container, so that encoders apply their strategies for the value's real type.
        var container = encoder.singleValueContainer()
        try container.encode(base)
    }

    var description: String {
        String(describing: base)
    }
}
