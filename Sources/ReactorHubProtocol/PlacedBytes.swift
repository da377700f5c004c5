import ReactorHubJSON

/// Bytes written into a message whose size was counted first (`OutboundMessage(count:)`):
/// the messages sent for every action (its ack, its patch) are written in place, without a
/// `JSONWriter`'s buffer to allocate and copy.
struct PlacedBytes {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var at = 0

    /// A message of `count` bytes that `write` writes from its first byte to its last.
    static func message(count: Int, headroom: Int, label: MessageLabel, _ write: (inout PlacedBytes) -> Void) -> OutboundMessage {
        OutboundMessage(count: count, headroom: headroom, label: label) { buffer in
            var out = PlacedBytes(buffer: buffer)
            write(&out)
            precondition(out.at == count, "a message's size was miscounted")
        }
    }

    /// Whether `byte` is written in a JSON string as it is (printable ASCII, not `"` or `\`).
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// The bytes of `value` written in decimal.
    static func digits(_ value: Int) -> Int {
        var count = value < 0 ? 2 : 1
        var rest = value.magnitude / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whether every byte of `text` is `isPlain`: it is written in a JSON string as it is.
    static func isPlain(_ text: String) -> Bool {
        // Over the contiguous bytes a native string has (iterating its view is slower).
        text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where !isPlain(byte) { return false }
            return true
        } ?? text.utf8.allSatisfy(isPlain)
    }

    mutating func append(_ bytes: some Collection<UInt8>) {
        let end = at + bytes.count
        _ = UnsafeMutableBufferPointer(rebasing: buffer[at..<end]).initialize(from: bytes)
        at = end
    }

    /// Writes `value` in decimal.
    mutating func append(_ value: Int) {
        if value < 0 { buffer[at] = UInt8(ascii: "-") }
        var rest = value.magnitude
        var index = at + Self.digits(value)
        at = index
        repeat {
            index -= 1
            buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
    }

    /// Writes `text` as a JSON string, quotes included.
    mutating func append(_ text: QuotedText) {
        if let escaped = text.escaped {
            append(escaped)
        } else {
            append("\"")
            append(text.text.utf8)
            append("\"")
        }
    }
}

/// A string as a JSON text writes it: as it is, between quotes, when it needs no escapes
/// (every address a hub makes, every sum); else escaped by a `JSONWriter`, the rare case.
struct QuotedText {
    let text: String
    let escaped: [UInt8]?

    init(_ text: String) {
        self.text = text
        if PlacedBytes.isPlain(text) {
            escaped = nil
        } else {
            var writer = JSONWriter()
            writer.writeString(text)
            escaped = writer.bytes
        }
    }

    /// Its bytes, quotes included.
    var count: Int { escaped?.count ?? text.utf8.count + 2 }
}
