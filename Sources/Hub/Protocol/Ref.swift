import JSON

/// A message's `ref` as the client wrote it: the bytes of its JSON text, carried back on
/// every reply unchanged (PROTOCOL.md), so `1E2` comes back as `1E2` and `"\u0041"` as
/// `"\u0041"` — the parsed value would be written as `100.0` and `"A"`.
///
/// Made only from a slice of a parsed message (a string or a number, hence valid JSON),
/// or in tests from a literal.
struct Ref: Equatable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    /// The JSON text, quotes included for a string.
    let json: [UInt8]

    /// The longest ref, in bytes of its text (a string's quotes not counted).
    static let maximumLength = 64

    /// The ref written at `range` of `message`, when it is a string or a number no longer
    /// than `maximumLength`; `value` is what the parser made of it.
    init?(_ value: JSONValue, writtenAt range: Range<Int>, in message: [UInt8]) {
        let text = Array(message[range])
        switch value {
        case .string:
            guard text.count - 2 <= Self.maximumLength else { return nil }
        case .int, .double:
            guard text.count <= Self.maximumLength else { return nil }
        default:
            return nil
        }
        json = text
    }

    /// A ref written as a JSON integer (tests).
    init(integerLiteral value: Int) {
        json = Array(String(value).utf8)
    }

    /// A ref written as a JSON string (tests).
    init(stringLiteral value: String) {
        var writer = JSONWriter()
        writer.writeString(value)
        json = writer.bytes
    }

    var description: String { String(decoding: json, as: UTF8.self) }
}
