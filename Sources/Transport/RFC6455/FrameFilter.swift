/// Stands between a WebSocket's socket and libwebsockets' frame parser, in the receive
/// tap: reads the socket into lws' buffer, lets through what `FrameGate` accepts, holds
/// back what it cannot judge yet, and turns a violation into the close frame the gate
/// chose.
///
/// It also answers pings itself: lws 4.1.6 keeps one pending pong and drops every ping
/// that arrives before it was sent, so of ten pings read at once only the first is
/// answered (Autobahn case 2.10). Each ping is turned into a pong in place (which lws
/// takes as an unsolicited pong, and ignores) and its payload queued in `pongs`, which
/// the writable callback sends.
///
/// That close frame is handed to lws as if the client had sent it, in place of the
/// offending frame: lws then echoes it (so the client receives exactly the code and
/// reason of the gate) and closes the TCP connection right after, as RFC 6455 section
/// 7.1.7 asks of a failed connection. Bytes read after it are discarded. The read itself
/// is passed in, so all of this is tested without sockets.
struct FrameFilter {
    /// What one call gave lws, in recv(2) terms.
    enum Result: Equatable {
        /// This many bytes are in the buffer.
        case count(Int)
        /// The peer closed the stream (recv returns 0).
        case endOfStream
        /// Nothing for lws now (recv returns -1 with EAGAIN); more will follow a poll.
        case wouldBlock
        /// The read failed (recv returns -1 with the read's errno).
        case readFailed
    }

    /// The largest close frame the filter writes: 2 header bytes, a 4-byte (zero) key, a
    /// status and at most 123 bytes of reason.
    static let closeFrameLimit = 2 + 4 + 125
    /// Room a buffer needs beyond one byte of new data: the held bytes and a close frame.
    static let reserve = FrameGate.maximumHeld + closeFrameLimit

    /// Pongs owed at most; beyond, the oldest are dropped (RFC 6455 section 5.5.3 allows
    /// answering only the most recent of several pings).
    static let maximumPongs = 16

    private(set) var gate = FrameGate()
    private var held: [UInt8] = []
    /// Payloads of the pongs owed to the client, oldest first.
    private(set) var pongs: [[UInt8]] = []
    /// Set once the close frame for a violation was handed to lws.
    private(set) var failure: FrameGate.Failure?

    /// Fills `buffer` as recv(2) would for lws. `read` reads the socket into the buffer
    /// it is given, with recv(2)'s results.
    mutating func receive(
        into buffer: UnsafeMutableRawBufferPointer,
        read: (UnsafeMutableRawBufferPointer) -> Int
    ) -> Result {
        if failure != nil {
            return discard(into: buffer, read: read)
        }
        let room = buffer.count - held.count - Self.closeFrameLimit
        precondition(room > 0, "a receive buffer of \(buffer.count) bytes cannot hold what the gate needs")
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer[held.count..<(held.count + room)])
        let count = read(target)
        if count == 0 { return .endOfStream }
        if count < 0 { return .readFailed }
        held.withUnsafeBytes { buffer.copyMemory(from: $0) }
        let window = held.count + count
        let outcome = gate.feed(UnsafeRawBufferPointer(rebasing: target[..<count]))
        for ping in outcome.pings {
            buffer[ping.offset] = 0x8A
            pongs.append(ping.payload)
        }
        if pongs.count > Self.maximumPongs {
            pongs.removeFirst(pongs.count - Self.maximumPongs)
        }
        if let failure = outcome.failure {
            self.failure = failure
            held = []
            let frame = Self.closeFrame(failure)
            let end = outcome.releasable + frame.count
            frame.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: buffer[outcome.releasable..<end]).copyMemory(from: $0)
            }
            return .count(end)
        }
        held = Array(buffer[outcome.releasable..<window])
        return outcome.releasable == 0 ? .wouldBlock : .count(outcome.releasable)
    }

    /// Takes the pongs owed, oldest first.
    mutating func takePongs() -> [[UInt8]] {
        defer { pongs = [] }
        return pongs
    }

    /// After the violation: whatever the client still sends is read and dropped.
    private func discard(into buffer: UnsafeMutableRawBufferPointer, read: (UnsafeMutableRawBufferPointer) -> Int) -> Result {
        let count = read(buffer)
        if count == 0 { return .endOfStream }
        return count < 0 ? .readFailed : .wouldBlock
    }

    /// A masked (with a zero key) close frame carrying the failure's code and reason.
    static func closeFrame(_ failure: FrameGate.Failure) -> [UInt8] {
        var reason: [UInt8] = []
        for scalar in failure.reason.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            guard reason.count + bytes.count <= 123 else { break }
            reason += bytes
        }
        let code = failure.code.rawValue
        return [0x88, 0x80 | UInt8(2 + reason.count), 0, 0, 0, 0, UInt8(code >> 8), UInt8(code & 0xFF)] + reason
    }
}
