/// A state that lists its pulses itself, as a `PulseRecorder` would collect them while the
/// state is encoded: each pulse's property name, `valueUpdatedCount` and value, in the
/// order encoding meets them.
///
/// For states whose JSON is at hand without encoding (see the hub's state encoding):
/// their pulses are then not met by an encoder, so the state names them.
public protocol PulseListing {
    /// The pulses, as a recorder would have them.
    var pulseRecords: [PulseRecorder.Record] { get }
}
