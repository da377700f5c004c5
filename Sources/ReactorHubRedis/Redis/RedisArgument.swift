/// One argument of a Redis command: binary-safe bytes, written as a string literal, an
/// interpolated string, an integer, or raw bytes.
///
/// `["SET", key, .bytes(frame), "PX", .int(5000)]`
public struct RedisArgument: Sendable, Hashable, ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral {
    /// The bytes sent for this argument.
    public var bytes: [UInt8]

    /// The bytes as given (NUL and non-UTF-8 bytes included).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The UTF-8 bytes of `text`.
    public init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    /// The decimal digits of `value`, as Redis expects numbers.
    public init(_ value: Int) {
        self.bytes = Array(String(value).utf8)
    }

    /// The UTF-8 bytes of a literal: `"SET"`.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The decimal digits of a literal: `5000`.
    public init(integerLiteral value: Int) {
        self.init(value)
    }

    /// Raw bytes.
    public static func bytes(_ bytes: [UInt8]) -> RedisArgument {
        RedisArgument(bytes)
    }

    /// A decimal integer.
    public static func int(_ value: Int) -> RedisArgument {
        RedisArgument(value)
    }

    /// A duration in whole milliseconds (for PX, PEXPIRE, BLOCK).
    public static func milliseconds(_ duration: Duration) -> RedisArgument {
        RedisArgument(duration.wholeMilliseconds)
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded down.
    var wholeMilliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
