import ReactorHubProtocol
import ReactorHubLibWebSockets

/// Several small outbound messages framed into one buffer, so that a connection with a
/// queue of them is written with one `send()` instead of one per message.
///
/// Each message becomes a complete, unmasked RFC 6455 text frame (FIN, opcode 1, the
/// shortest length encoding), exactly what libwebsockets writes for `LWS_WRITE_TEXT`
/// (lws runs no extension: permessage-deflate is the server's own), or, for a message
/// compressed for permessage-deflate, the same with RSV1 set; the buffer is then written
/// as it is.
/// One batch serves every connection of the service thread in turn: libwebsockets copies
/// whatever the socket does not take, so the buffer is free again once a write returns.
///
/// Safety of `@unchecked Sendable`: used only on the service thread (ServerCore).
final class FrameBatch: @unchecked Sendable {
    /// Messages larger than this are written alone, from their own buffer.
    static let messageLimit = 2048
    /// Payload and headers held at most.
    let capacity: Int
    /// Bytes framed so far (after the headroom).
    private(set) var count = 0
    /// Messages framed so far.
    private(set) var messages = 0
    private let storage: UnsafeMutablePointer<UInt8>

    init(capacity: Int = 16384) {
        self.capacity = capacity
        storage = .allocate(capacity: LWSHeadroom.bytes + capacity)
    }

    deinit {
        storage.deallocate()
    }

    /// Whether `message` is one a batch takes at all.
    static func takes(_ message: OutboundMessage) -> Bool {
        message.count <= messageLimit
    }

    /// The first byte of a final text frame, plain or compressed (RSV1).
    static func textFrameByte(compressed: Bool) -> UInt8 {
        compressed ? 0xC1 : 0x81
    }

    /// Whether `message`, framed, still fits.
    func fits(_ message: OutboundMessage) -> Bool {
        count + Self.headerSize(message.count) + message.count <= capacity
    }

    /// Frames `message` after the others, as a text frame (with RSV1 when `compressed`:
    /// its bytes are compressed); it must fit.
    func append(_ message: OutboundMessage, compressed: Bool = false) {
        precondition(fits(message))
        var at = storage + LWSHeadroom.bytes + count
        let length = message.count
        at += Self.writeHeader(at, first: Self.textFrameByte(compressed: compressed), length: length)
        message.withBytes { bytes in
            if let base = bytes.baseAddress { at.update(from: base.assumingMemoryBound(to: UInt8.self), count: length) }
        }
        count = at + length - (storage + LWSHeadroom.bytes)
        messages += 1
    }

    /// The framed bytes, with `LWSHeadroom.bytes` writable bytes in front.
    var framedPointer: UnsafeMutablePointer<UInt8> { storage + LWSHeadroom.bytes }

    /// The framed bytes (tests).
    var framed: [UInt8] { Array(UnsafeBufferPointer(start: framedPointer, count: count)) }

    /// Empties the batch.
    func reset() {
        count = 0
        messages = 0
    }

    static func headerSize(_ length: Int) -> Int {
        length < 126 ? 2 : length <= 0xFFFF ? 4 : 10
    }

    /// Writes an unmasked frame header (`first`: FIN, RSV and opcode; the shortest length
    /// encoding) at `at`; returns its size.
    static func writeHeader(_ at: UnsafeMutablePointer<UInt8>, first: UInt8, length: Int) -> Int {
        at[0] = first
        if length < 126 {
            at[1] = UInt8(length)
            return 2
        } else if length <= 0xFFFF {
            at[1] = 126
            at[2] = UInt8(length >> 8)
            at[3] = UInt8(length & 0xFF)
            return 4
        }
        at[1] = 127
        for index in 0..<8 {
            at[2 + index] = UInt8((length >> (8 * (7 - index))) & 0xFF)
        }
        return 10
    }
}
