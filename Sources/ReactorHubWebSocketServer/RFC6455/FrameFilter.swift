/// Stands between a WebSocket's socket and libwebsockets' frame parser, in the receive
/// tap: reads the socket into lws' buffer, lets through what `FrameGate` accepts, and
/// holds back what it cannot judge yet.
///
/// At a violation it lets through the frames before the offending one and no byte of it
/// or after: the connection then owes the close the gate chose (`failure`), which the
/// writable callback sends once what was queued before is written (as lws' own close
/// does: close frame, then lws waits for the client's). Bytes read afterwards are
/// dropped; once the close is sent, the next read ends the stream, so the TCP
/// connection closes as soon as the client answers (RFC 6455 section 7.1.7).
///
/// It also answers pings itself: lws 4.1.6 keeps one pending pong and drops every ping
/// that arrives before it was sent, so of ten pings read at once only the first is
/// answered (Autobahn case 2.10). Each ping is turned into a pong in place (which lws
/// takes as an unsolicited pong, and ignores) and its payload queued in `pongs`, which
/// the writable callback sends.
///
/// The read itself is passed in, so all of this is tested without sockets.
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

    /// Room a buffer needs beyond one byte of new data: the bytes the gate may hold.
    static let reserve = FrameGate.maximumHeld

    /// Pongs owed at most; beyond, the oldest are dropped (RFC 6455 section 5.5.3 allows
    /// answering only the most recent of several pings).
    static let maximumPongs = 16

    private(set) var gate = FrameGate()
    private var held: [UInt8] = []
    /// Payloads of the pongs owed to the client, oldest first.
    private(set) var pongs: [[UInt8]] = []
    /// The close owed since the stream broke the protocol.
    private(set) var failure: FrameGate.Failure?

    /// Fills `buffer` as recv(2) would for lws. `read` reads the socket into the buffer
    /// it is given, with recv(2)'s results; `closeSent` says whether the close for a
    /// violation has gone out.
    mutating func receive(
        into buffer: UnsafeMutableRawBufferPointer,
        closeSent: Bool = false,
        read: (UnsafeMutableRawBufferPointer) -> Int
    ) -> Result {
        if failure != nil {
            let count = read(buffer)
            if count < 0 { return .readFailed }
            return count == 0 || closeSent ? .endOfStream : .wouldBlock
        }
        let room = buffer.count - held.count
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
        for rewrite in outcome.rewrites {
            buffer[rewrite.offset] = rewrite.byte
        }
        if pongs.count > Self.maximumPongs {
            pongs.removeFirst(pongs.count - Self.maximumPongs)
        }
        if let failure = outcome.failure {
            self.failure = failure
            held = []
        } else {
            held = Array(buffer[outcome.releasable..<window])
        }
        return outcome.releasable == 0 ? .wouldBlock : .count(outcome.releasable)
    }

    /// From now on, messages may be compressed (permessage-deflate was negotiated).
    mutating func acceptCompressedMessages() {
        gate.acceptsCompressedMessages = true
    }

    /// How the oldest message not yet taken began (`FrameGate.messageStarts`).
    mutating func takeMessageStart() -> FrameGate.MessageStart? {
        gate.takeMessageStart()
    }

    /// Takes the pongs owed, oldest first.
    mutating func takePongs() -> [[UInt8]] {
        defer { pongs = [] }
        return pongs
    }
}
