/// Bytes written into a message whose size was counted first (`OutboundMessage(count:)`):
/// the messages sent for every action (its ack, its patch) are written in place, without a
/// `JSONWriter`'s buffer to allocate and copy.
struct PlacedBytes {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var at = 0

    /// Whether `byte` is written in a JSON string as it is (printable ASCII, not `"` or `\`).
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// The number of decimal digits of `value` (not negative).
    static func digits(_ value: Int) -> Int {
        var count = 1
        var rest = value / 10
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

    /// Writes `value` (not negative) in decimal.
    mutating func append(_ value: Int) {
        var rest = value
        var index = at + Self.digits(value)
        at = index
        repeat {
            index -= 1
            buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
    }
}
