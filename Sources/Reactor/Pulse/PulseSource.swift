/// The pulses of a state decoded from a form that does not carry them, such as the state a
/// hub sends: a client that mirrors a remote reactor counts the `pulse` messages it
/// receives and hands the counts and last values to the decoder, so the mirrored state's
/// pulses fire exactly as the remote ones did (`reactor.pulse(\.$alertMessage)` works on
/// the mirror as on a local reactor).
///
/// Put a source in `decoder.userInfo[PulseSource.userInfoKey]`: a `Pulse` property whose
/// name the source knows decodes with that `valueUpdatedCount` and value, whatever the
/// encoded state holds for it (usually nothing). Unknown names decode as before.
public struct PulseSource: Sendable {
    /// The `userInfo` key under which decoders look for a source.
    public static let userInfoKey = CodingUserInfoKey(rawValue: "ReactorHub.PulseSource")!

    /// One pulse as the client knows it: how often it fired and how to decode its last value.
    public struct Fired: Sendable {
        /// The number of times the pulse fired (wraps like `Pulse.valueUpdatedCount`).
        public var updateCount: UInt
        /// Decodes the last value as the given type.
        public var decodeValue: @Sendable (any Decodable.Type) throws -> any Decodable

        /// Creates an entry; `decodeValue` decodes the pulse's last value as the type it is given.
        public init(updateCount: UInt, decodeValue: @escaping @Sendable (any Decodable.Type) throws -> any Decodable) {
            self.updateCount = updateCount
            self.decodeValue = decodeValue
        }
    }

    /// The known pulses by property name.
    public var pulses: [String: Fired]

    /// Creates a source from the pulses it knows, by property name.
    public init(_ pulses: [String: Fired] = [:]) {
        self.pulses = pulses
    }

    /// The pulse named `name`, if the source knows it.
    public subscript(name: String) -> Fired? {
        pulses[name]
    }
}
