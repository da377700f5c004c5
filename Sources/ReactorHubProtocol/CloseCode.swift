/// A WebSocket close status (RFC 6455 section 7.4), with the codes PROTOCOL.md uses.
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric status sent in the close frame.
    public let rawValue: UInt16

    /// Wraps a numeric status.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normal = CloseCode(rawValue: 1000)
    /// 1001: the server is shutting down.
    public static let goingAway = CloseCode(rawValue: 1001)
    /// 1002: the peer broke the WebSocket protocol (RFC 6455): an unmasked frame, an
    /// oversized or fragmented control frame, a malformed close frame.
    public static let protocolError = CloseCode(rawValue: 1002)
    /// 1003: a binary frame was received; only text frames are accepted.
    public static let unsupportedData = CloseCode(rawValue: 1003)
    /// 1005: the peer's close frame carried no status.
    public static let noStatus = CloseCode(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent on the wire).
    public static let abnormal = CloseCode(rawValue: 1006)
    /// 1007: a text frame was not valid UTF-8.
    public static let invalidPayload = CloseCode(rawValue: 1007)
    /// 1008: a policy (authentication, origin) refused the connection.
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// 1009: a message was larger than `maxMessageBytes`.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// 1011: the server hit an internal error.
    public static let internalError = CloseCode(rawValue: 1011)
    /// 1013: the connection was too slow to keep even its replies.
    public static let tryAgainLater = CloseCode(rawValue: 1013)

    public var description: String { String(rawValue) }
}
