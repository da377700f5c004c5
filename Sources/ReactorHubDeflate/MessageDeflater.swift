internal import CZlib

/// Compresses whole WebSocket messages as permessage-deflate sends them without context
/// takeover (RFC 7692 section 7.2.1): each message on its own, so that one compressed
/// message serves every connection that negotiated the extension. The 4 bytes
/// `00 00 FF FF` that end a sync flush are left off.
///
/// One zlib stream, reset between messages (its ~270 KB of state are allocated once per
/// deflater, not per connection). Not thread-safe: one per thread that compresses.
package final class MessageDeflater {
    /// zlib's compression level (1 fastest … 9 smallest).
    package let level: Int32
    /// The LZ77 window, in bits (9 to 15): the peer's inflater needs at most this much.
    package let windowBits: Int32
    private let stream: UnsafeMutablePointer<z_stream>
    private var output: UnsafeMutableRawBufferPointer

    /// A deflater at `level` with a window of `windowBits` (what the peer allowed with
    /// `server_max_window_bits`) and zlib's `memoryLevel` (1 to 9, its hash table size).
    package init(level: Int32 = 6, windowBits: Int32 = 15, memoryLevel: Int32 = 8) {
        self.level = level
        self.windowBits = windowBits
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = rh_zlib_deflate_init(stream, level, windowBits, memoryLevel)
        precondition(status == Z_OK, "zlib deflateInit2 failed (\(status)): out of memory or bad parameters")
        output = .allocate(byteCount: 16384, alignment: 16)
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        output.deallocate()
    }

    /// Compresses `message` and hands the compressed bytes (valid only during the call) to
    /// `body`.
    package func compress<Result>(_ message: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        // A sync flush adds at most a stored block's 5 bytes to deflateBound's estimate.
        let bound = Int(deflateBound(stream, UInt(message.count))) + 16
        if output.count < bound {
            output.deallocate()
            output = .allocate(byteCount: max(bound, output.count * 2), alignment: 16)
        }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: message.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(message.count)
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let status = deflate(stream, Z_SYNC_FLUSH)
        precondition(
            status == Z_OK && stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0,
            "zlib deflate failed (\(status)) with room for deflateBound"
        )
        let produced = output.count - Int(stream.pointee.avail_out)
        deflateReset(stream)
        // A sync flush ends with an empty stored block, 00 00 FF FF, which the receiver puts back.
        precondition(produced >= 4, "a sync flush ends with 4 bytes")
        return body(UnsafeRawBufferPointer(rebasing: output[..<(produced - 4)]))
    }

    /// Compresses `message` into a new array (tests, tools).
    package func compress(_ message: some Collection<UInt8>) -> [UInt8] {
        Array(message).withUnsafeBytes { bytes in compress(bytes) { Array($0) } }
    }
}
