/// Appends compact JSON text to a byte buffer.
///
/// The hub frames its messages with it without building a `JSONValue` per frame:
///
/// ```swift
/// var writer = JSONWriter(reservingHeadroom: 16)   // room for the transport's header
/// writer.writeRaw(#"{"type":"patch","reactor":"#)
/// writer.writeString(address)
/// writer.writeRaw(#","version":"#)
/// writer.writeInt(version)
/// writer.writeRaw(#","patch":"#)
/// writer.writePatch(operations)
/// writer.writeRaw("}")
/// ```
///
/// Output is compact (no whitespace), strings are escaped as RFC 8259 requires and
/// non-ASCII text is written as raw UTF-8.
public struct JSONWriter: Sendable {
    /// Everything written so far, after any headroom the writer started with.
    public var bytes: [UInt8]

    /// Creates a writer with an empty buffer.
    public init() {
        bytes = []
    }

    /// Creates a writer whose buffer starts with `headroom` zero bytes, which the transport
    /// fills with its header later, so the payload is never copied to make room.
    public init(reservingHeadroom headroom: Int, capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(headroom + capacity)
        bytes.append(contentsOf: repeatElement(0, count: headroom))
    }

    /// Creates a writer that appends to `buffer`.
    public init(buffer: [UInt8]) {
        bytes = buffer
    }

    /// Writes ASCII text as it is, for punctuation and fixed keys: `{"type":"patch",`.
    ///
    /// The text is not escaped; it must be valid JSON in its context.
    public mutating func writeRaw(_ text: StaticString) {
        if text.hasPointerRepresentation {
            bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        } else {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
    }

    /// Writes one byte as it is.
    public mutating func writeByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Writes `null`.
    public mutating func writeNull() {
        writeRaw("null")
    }

    /// Writes `true` or `false`.
    public mutating func writeBool(_ value: Bool) {
        if value { writeRaw("true") } else { writeRaw("false") }
    }

    /// Writes an object key with its colon: `"name":`.
    public mutating func writeKey(_ key: String) {
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes any JSON value, compactly, objects in their member order.
    public mutating func writeValue(_ value: JSONValue) {
        switch value {
        case .null:
            writeRaw("null")
        case .bool(let flag):
            writeBool(flag)
        case .int(let number):
            writeInt(number)
        case .double(let number):
            writeDouble(number)
        case .string(let text):
            writeString(text)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                writeValue(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            writeObject(object)
        }
    }

    /// Writes an object, compactly, in its member order.
    public mutating func writeObject(_ object: JSONObject) {
        bytes.append(UInt8(ascii: "{"))
        var first = true
        for (key, member) in object {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
            writeValue(member)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// The value as compact JSON text in UTF-8.
    public func serialized() -> [UInt8] {
        var writer = JSONWriter()
        writer.bytes.reserveCapacity(256)
        writer.writeValue(self)
        return writer.bytes
    }
}
