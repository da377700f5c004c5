/// One RESP2 reply as hiredis parses it: a tree of bulk strings, integers, arrays, nils,
/// status lines and (inside arrays or pipelines) error replies.
public enum RedisValue: Sendable, Hashable {
    /// A bulk string: binary-safe bytes.
    case string([UInt8])
    /// An integer reply.
    case integer(Int64)
    /// An array reply (multi-bulk).
    case array([RedisValue])
    /// The nil bulk string or nil array.
    case null
    /// A status reply such as `OK` or `PONG`.
    case status(String)
    /// An error reply; at the top level of `send` it is thrown instead.
    case error(RedisError)
}

extension RedisValue {
    /// The bytes of a bulk string or status reply; nil for anything else.
    public var bytes: [UInt8]? {
        switch self {
        case .string(let bytes): bytes
        case .status(let text): Array(text.utf8)
        default: nil
        }
    }

    /// The bytes decoded as UTF-8 (invalid sequences replaced); nil when not a string.
    public var text: String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    /// An integer reply, or a bulk string holding a decimal integer (as HGET returns).
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .string(let bytes): Int64(String(decoding: bytes, as: UTF8.self))
        default: nil
        }
    }

    /// The elements of an array reply; nil for anything else.
    public var array: [RedisValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// Whether this is the nil reply.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Throws the error held by an `.error` value, else returns the value unchanged.
    public func throwingError() throws(RedisError) -> RedisValue {
        if case .error(let error) = self { throw error }
        return self
    }
}
