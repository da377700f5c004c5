internal import CZlib

/// Decompresses the messages a client compressed with permessage-deflate (RFC 7692
/// section 7.2.2), piece by piece as they arrive, without context takeover: the stream is
/// reset after each message, so the inflater holds nothing between messages and can be
/// lent to whichever connection is receiving one (`InflaterPool`).
///
/// Its memory is zlib's inflate state (about 7 KB) and, once a message needs it, a window
/// of 2^`windowBits` bytes, plus the piece buffer. Not thread-safe.
package final class MessageInflater {
    /// What inflating a piece gave.
    package enum Outcome: Equatable {
        /// Everything given was inflated and handed on.
        case inflated
        /// The sink refused a piece (the message is too big): nothing more was inflated.
        case stopped
        /// The bytes are not a DEFLATE stream; the message (and the connection) must fail.
        case invalid(String)
    }

    /// The largest window the peer compresses with, in bits.
    package let windowBits: Int32
    /// The most bytes handed to the sink at once.
    package let pieceBytes: Int
    private let stream: UnsafeMutablePointer<z_stream>
    private let piece: UnsafeMutableRawBufferPointer
    /// The message's DEFLATE stream ended with a final block: only the tail may follow.
    private var ended = false

    /// The tail a sender leaves off every compressed message (an empty stored block's).
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// An inflater for windows up to `windowBits` (8 to 15; zlib compressors never use 8,
    /// so 9 is taken for it), handing on at most `pieceBytes` at a time.
    package init(windowBits: Int32 = 15, pieceBytes: Int = 4096) {
        self.windowBits = Self.windowBits(for: windowBits)
        self.pieceBytes = pieceBytes
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = rh_zlib_inflate_init(stream, self.windowBits)
        precondition(status == Z_OK, "zlib inflateInit2 failed (\(status)): out of memory")
        piece = .allocate(byteCount: pieceBytes, alignment: 16)
    }

    /// The window an inflater made for `windowBits` has.
    package static func windowBits(for windowBits: Int32) -> Int32 {
        max(9, min(15, windowBits))
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        piece.deallocate()
    }

    /// Inflates the next `input` of a message and hands the output to `sink` in pieces;
    /// `sink` returns false to stop. With `final` (the message's last bytes), the tail is
    /// put back and the stream is reset for the next message, whatever the outcome.
    package func inflate(
        _ input: UnsafeRawBufferPointer, final: Bool, into sink: (UnsafeRawBufferPointer) -> Bool
    ) -> Outcome {
        defer { if final { reset() } }
        let outcome = run(input, sink)
        guard final, outcome == .inflated, !ended else { return outcome }
        return Self.tail.withUnsafeBytes { run($0, sink) }
    }

    /// Forgets the message under way (a connection that closed in the middle of one).
    package func reset() {
        inflateReset(stream)
        ended = false
    }

    private func run(_ input: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) -> Bool) -> Outcome {
        guard !input.isEmpty else { return .inflated }
        if ended { return .invalid("data after the final DEFLATE block of a message") }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        while true {
            stream.pointee.next_out = piece.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(piece.count)
            let status = CZlib.inflate(stream, Z_SYNC_FLUSH)
            let produced = piece.count - Int(stream.pointee.avail_out)
            if produced > 0, !sink(UnsafeRawBufferPointer(rebasing: piece[..<produced])) {
                return .stopped
            }
            switch status {
            case Z_OK:
                // Stopped for room, or for input: go on while either is left.
                if stream.pointee.avail_in == 0 && produced < piece.count { return .inflated }
            case Z_BUF_ERROR:
                return .inflated
            case Z_STREAM_END:
                ended = true
                return stream.pointee.avail_in == 0 ? .inflated : .invalid("data after the final DEFLATE block of a message")
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                return .invalid("invalid compressed data: \(reason)")
            }
        }
    }
}
