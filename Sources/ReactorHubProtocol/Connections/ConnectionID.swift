/// Identifies one WebSocket connection for the life of the server; never reused.
public struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number behind the identifier, increasing in the order connections opened.
    public let rawValue: UInt64

    /// Wraps a raw number; the server assigns these, tests may build them.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String { "c\(rawValue)" }
}
