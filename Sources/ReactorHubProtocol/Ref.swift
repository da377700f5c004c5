package import ReactorHubJSON

/// A message's `ref` as the client wrote it: the bytes of its JSON text, carried back on
/// every reply unchanged (PROTOCOL.md), so `1E2` comes back as `1E2` and `"\u0041"` as
/// `"\u0041"` — the parsed value would be written as `100.0` and `"A"`.
///
/// Made only from a slice of a parsed message (a string or a number, hence valid JSON),
/// or in tests from a literal.
package struct Ref: Equatable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByStringLiteral {
    /// The JSON text, quotes included for a string.
    package let json: [UInt8]

    /// The longest ref, in characters of its text as written: Unicode scalars, a string's
    /// quotes not counted, an escape counted as written (`\u0041` is 6).
    ///
    /// Scalars, not `Character`s: one character can hold any number of scalars (a letter
    /// and its combining marks), and the ref is echoed on every reply to the message.
    package static let maximumLength = 64

    /// The ref written at `range` of `message`, when it is a string or a number no longer
    /// than `maximumLength`; `value` is what the parser made of it.
    package init?(_ value: JSONValue, writtenAt range: Range<Int>, in message: [UInt8]) {
        let text = message[range]
        switch value {
        case .string:
            guard Self.scalarCount(text) - 2 <= Self.maximumLength else { return nil }
        case .int, .double:
            guard text.count <= Self.maximumLength else { return nil }
        default:
            return nil
        }
        json = Array(text)
    }

    /// The ref written as `json`, a string or an integer the caller has checked, no
    /// longer than `maximumLength` (`ClientMessageParser`'s reading of a plain message).
    init(plainJSON json: ArraySlice<UInt8>) {
        self.json = Array(json)
    }

    /// The ref whose text is `json` (as carried between nodes, and read back from a reply
    /// the hub wrote): nil unless it is a string or a number no longer than `maximumLength`.
    package init?(json: [UInt8]) {
        guard let value = try? JSONParser().parse(json) else { return nil }
        self.init(value, writtenAt: 0..<json.count, in: json)
    }

    /// The ref of the reply `message` (a JSON object the hub wrote), as it is written there.
    package init?(of message: [UInt8]) {
        guard let parsed = try? JSONParser().parseWithMemberRanges(message),
              case .object(let object) = parsed.value, let value = object["ref"],
              let range = parsed.memberRanges["ref"]
        else { return nil }
        self.init(value, writtenAt: range, in: message)
    }

    /// The Unicode scalars in `utf8`, which the parser has validated: its bytes that are
    /// not continuation bytes (`10xxxxxx`).
    package static func scalarCount(_ utf8: ArraySlice<UInt8>) -> Int {
        utf8.reduce(0) { count, byte in byte & 0xC0 == 0x80 ? count : count + 1 }
    }

    /// A ref written as a JSON integer (tests).
    package init(integerLiteral value: Int) {
        json = Array(String(value).utf8)
    }

    /// A ref written as a JSON string (tests).
    package init(stringLiteral value: String) {
        var writer = JSONWriter()
        writer.writeString(value)
        json = writer.bytes
    }

    package var description: String { String(decoding: json, as: UTF8.self) }
}
