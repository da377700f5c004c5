public import ReactorHubJSON

/// A pulse as the client knows it: how many `pulse` messages of that name arrived since
/// the reactor was joined, and the last value. A mirrored state decodes with these
/// (`PulseSource`), so its `Pulse` properties count as the remote ones did.
public struct FiredPulse: Sendable, Hashable {
    /// How many times the pulse fired (wraps like `Pulse.valueUpdatedCount`).
    public var count: UInt
    /// The last value.
    public var value: JSONValue

    /// Creates a record.
    public init(count: UInt, value: JSONValue) {
        self.count = count
        self.value = value
    }
}
