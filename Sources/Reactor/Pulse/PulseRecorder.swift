import ReactorHubLocking
/// Collects the pulses of a state while it is encoded, so that pulses travel apart from the state.
///
/// Put a recorder in `encoder.userInfo[PulseRecorder.userInfoKey]`: each `Pulse` then reports
/// its name, count and value here and encodes nothing, so the encoded state carries no pulse.
public final class PulseRecorder: Sendable {
    /// One pulse met while encoding: the property's name, its `valueUpdatedCount` and its value.
    public typealias Record = (name: String, updateCount: UInt, value: any Encodable & Sendable)

    /// The `userInfo` key under which encoders look for a recorder.
    public static let userInfoKey = CodingUserInfoKey(rawValue: "ReactorHub.PulseRecorder")!

    private let storage = Locked<[Record]>([])

    /// Creates an empty recorder.
    public init() {}

    /// The pulses recorded so far, in encoding order.
    public var records: [Record] {
        storage.withLock { $0 }
    }

    /// Adds one pulse; called by `Pulse.encode(to:)`.
    public func record(name: String, updateCount: UInt, value: any Encodable & Sendable) {
        storage.withLock { $0.append((name: name, updateCount: updateCount, value: value)) }
    }

    /// Returns the pulses recorded so far and forgets them, so that the recorder can be reused.
    public func removeAll() -> [Record] {
        storage.withLock { records in
            defer { records.removeAll() }
            return records
        }
    }
}
