import ReactorHubProtocol
/// Checks the frames a client sends against RFC 6455, on the raw bytes of the stream,
/// before libwebsockets parses them; a value type fed by `FrameFilter`.
///
/// libwebsockets 4.1.6 accepts unmasked client frames and answers control frames longer
/// than 125 bytes, a 64-bit length with its top bit set and an invalid UTF-8 close reason
/// by dropping the TCP connection; it refuses the registered close codes 1012–1014 and
/// echoes 5000 and above (docs/conformance.md lists the source lines). The gate answers
/// each as section 5 and 7 ask: 1002, or 1007 for the reason. The checks lws already
/// makes well (reserved bits, opcodes, fragmentation order) are made here too, so that
/// the close code the layer above is told is always the one sent.
///
/// Bytes are released to lws as soon as they cannot be part of a violation: a frame's
/// header is held until it is whole, a control frame until its payload is whole (at most
/// 14 + 125 bytes); data payloads pass at once. Every reserved bit must be 0, except RSV1
/// on the first frame of a message once permessage-deflate was negotiated
/// (`acceptsCompressedMessages`): such a message is compressed (RFC 7692 section 6), and
/// since libwebsockets knows nothing of the extension (it would refuse RSV1, and check the
/// compressed bytes as UTF-8), the gate clears the bit and makes a text frame binary as
/// lws sees it (`Outcome.rewrites`); how each message began, compressed or not, text or
/// binary, waits in `messageStarts` for the layer that inflates it.
struct FrameGate: Equatable {
    /// Why the connection must be failed, and the close frame that says so.
    struct Failure: Equatable, Sendable {
        var code: CloseCode
        var reason: String
    }

    /// A ping frame that became whole: where it starts among the bytes of the outcome,
    /// and its payload (unmasked).
    struct Ping: Equatable {
        var offset: Int
        var payload: [UInt8]
    }

    /// A byte of the stream to change before lws parses it: where it is among the bytes
    /// of the outcome, and its new value.
    struct Rewrite: Equatable {
        var offset: Int
        var byte: UInt8
    }

    /// How a message began on the wire.
    struct MessageStart: Equatable {
        /// RSV1 was set: the payload is compressed (permessage-deflate).
        var compressed: Bool
        /// The opcode was binary (a compressed text message reaches lws as binary).
        var binary: Bool
    }

    /// What feeding bytes gave.
    struct Outcome: Equatable {
        /// How many bytes, counted from the oldest byte not yet released, may go on to
        /// libwebsockets.
        var releasable: Int
        /// Set when the stream broke the protocol: the bytes after `releasable` begin
        /// the offending frame and must never reach libwebsockets.
        var failure: Failure?
        /// The pings among the releasable bytes, in order.
        var pings: [Ping] = []
        /// Header bytes among the releasable bytes to change before lws reads them.
        var rewrites: [Rewrite] = []
    }

    /// The most bytes the gate ever holds back: a whole control frame.
    static let maximumHeld = 14 + 125

    private enum Phase: Equatable {
        /// Reading a frame header into `header`.
        case header
        /// Passing a data frame's payload through.
        case dataPayload(remaining: UInt64)
        /// Collecting a control frame's payload, unmasked, into `controlPayload`.
        case controlPayload(opcode: UInt8, remaining: Int)
        /// The client sent a valid close: what follows is for lws to answer.
        case closed
        /// A violation was reported; nothing more is checked.
        case failed
    }

    private var phase = Phase.header
    private var header: [UInt8] = []
    /// The frame's masking key, first byte lowest (held without an array: one per frame).
    private var mask: UInt32 = 0
    private var controlPayload: [UInt8] = []
    /// A text or binary message was started without FIN: continuations are expected.
    private var messageOpen = false
    /// Bytes fed but not released: the frame being read, while it may still be refused.
    private(set) var held = 0
    /// The status of the client's valid close frame, as it sent it (lws rewrites 1012–1014
    /// to 1002 before its callback sees them).
    private(set) var peerCloseCode: UInt16?
    /// Set by `finishControlFrame` when the frame it finished was a ping.
    private var finishedPing = false
    /// Messages may be compressed (RSV1 on their first frame): permessage-deflate was negotiated.
    var acceptsCompressedMessages = false
    /// How each message whose first frame was released began, oldest first (kept only
    /// with `acceptsCompressedMessages`).
    private(set) var messageStarts: [MessageStart] = []
    private var messageStartsHead = 0
    /// Set by `readHeader` when the header it finished must be rewritten: the new first
    /// byte and the header's length.
    private var finishedRewrite: HeaderRewrite?

    private struct HeaderRewrite: Equatable {
        var byte: UInt8
        var length: Int
    }

    /// Feeds the next bytes of the stream.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        let heldBefore = held
        var index = 0
        var pings: [Ping] = []
        var rewrites: [Rewrite] = []
        func notePing() {
            if let rewrite = finishedRewrite {
                finishedRewrite = nil
                // The header just finished, all of it held until now.
                rewrites.append(Rewrite(offset: heldBefore + index - rewrite.length, byte: rewrite.byte))
            }
            guard finishedPing else { return }
            finishedPing = false
            // A control frame's header is 6 bytes (masked, 7-bit length), all of it held.
            pings.append(Ping(offset: heldBefore + index - 6 - controlPayload.count, payload: controlPayload))
        }
        while index < bytes.count {
            switch phase {
            case .closed, .failed:
                held = 0
                index = bytes.count
            case .dataPayload(let remaining):
                let taken = Int(min(remaining, UInt64(bytes.count - index)))
                index += taken
                phase = remaining == UInt64(taken) ? .header : .dataPayload(remaining: remaining - UInt64(taken))
            case .header:
                held += 1
                header.append(bytes[index])
                index += 1
                if let failure = readHeader() {
                    return fail(failure, heldBefore: heldBefore, consumed: index, pings: pings, rewrites: rewrites)
                }
                notePing()
            case .controlPayload(let opcode, let remaining):
                let taken = min(remaining, bytes.count - index)
                for offset in 0..<taken {
                    controlPayload.append(bytes[index + offset] ^ UInt8(truncatingIfNeeded: mask >> (8 * UInt32(controlPayload.count & 3))))
                }
                held += taken
                index += taken
                if taken < remaining {
                    phase = .controlPayload(opcode: opcode, remaining: remaining - taken)
                } else if let failure = finishControlFrame(opcode) {
                    return fail(failure, heldBefore: heldBefore, consumed: index, pings: pings, rewrites: rewrites)
                } else {
                    notePing()
                }
            }
        }
        return Outcome(releasable: heldBefore + bytes.count - held, failure: nil, pings: pings, rewrites: rewrites)
    }

    private mutating func fail(_ failure: Failure, heldBefore: Int, consumed: Int, pings: [Ping], rewrites: [Rewrite]) -> Outcome {
        phase = .failed
        let releasable = heldBefore + consumed - held
        held = 0
        return Outcome(releasable: releasable, failure: failure, pings: pings, rewrites: rewrites)
    }

    /// How the oldest message not yet taken began (nil: none is waiting).
    mutating func takeMessageStart() -> MessageStart? {
        guard messageStartsHead < messageStarts.count else { return nil }
        let start = messageStarts[messageStartsHead]
        messageStartsHead += 1
        if messageStartsHead == messageStarts.count {
            messageStarts.removeAll(keepingCapacity: messageStarts.count <= 64)
            messageStartsHead = 0
        }
        return start
    }

    /// Checks the header bytes read so far, as soon as each one can be judged; moves on
    /// once the header is whole.
    private mutating func readHeader() -> Failure? {
        let first = header[0]
        let opcode = first & 0x0F
        let isFinal = first & 0x80 != 0
        let isControl = opcode & 0x08 != 0
        if header.count == 1 {
            return checkFirstByte(opcode: opcode, reserved: first & 0x70, isFinal: isFinal, isControl: isControl)
        }
        let headerLength = header.count
        let second = header[1]
        let shortLength = Int(second & 0x7F)
        if header.count == 2 {
            guard second & 0x80 != 0 else {
                return protocolError("client frames must be masked (RFC 6455 section 5.1)")
            }
            if isControl && shortLength > 125 {
                return protocolError("control frame payload over 125 bytes")
            }
        }
        let lengthBytes = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
        if lengthBytes == 8 && header.count == 3 && header[2] & 0x80 != 0 {
            return protocolError("payload length with its most significant bit set")
        }
        guard header.count == 2 + lengthBytes + 4 else { return nil }

        var length = UInt64(shortLength)
        if lengthBytes > 0 {
            length = header[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let keyStart = 2 + lengthBytes
        mask = UInt32(header[keyStart]) | UInt32(header[keyStart + 1]) << 8 | UInt32(header[keyStart + 2]) << 16
            | UInt32(header[keyStart + 3]) << 24
        header.removeAll(keepingCapacity: true)
        if acceptsCompressedMessages && (opcode == 0x1 || opcode == 0x2) {
            let compressed = first & 0x40 != 0
            messageStarts.append(MessageStart(compressed: compressed, binary: opcode == 0x2))
            if compressed {
                // RSV1 cleared, and text made binary, so that lws checks nothing of the bytes.
                finishedRewrite = HeaderRewrite(byte: (first & 0xB0) | 0x02, length: headerLength)
            }
        }
        if isControl {
            controlPayload.removeAll(keepingCapacity: true)
            phase = .controlPayload(opcode: opcode, remaining: Int(length))
            return length == 0 ? finishControlFrame(opcode) : nil
        }
        messageOpen = !isFinal
        held = 0
        phase = length == 0 ? .header : .dataPayload(remaining: length)
        return nil
    }

    private func checkFirstByte(opcode: UInt8, reserved: UInt8, isFinal: Bool, isControl: Bool) -> Failure? {
        if reserved != 0 {
            guard acceptsCompressedMessages else {
                return protocolError("reserved bits set, and no extension was negotiated")
            }
            guard reserved == 0x40 else {
                return protocolError("RSV2 or RSV3 set; permessage-deflate uses RSV1 only")
            }
            guard opcode == 0x1 || opcode == 0x2 else {
                return protocolError("RSV1 set on a \(isControl ? "control" : "continuation") frame; only a message's first frame may have it")
            }
        }
        switch opcode {
        case 0x0 where !messageOpen:
            return protocolError("continuation frame without a message to continue")
        case 0x1, 0x2:
            if messageOpen {
                return protocolError("new message before the fragmented one ended")
            }
        case 0x0, 0x8, 0x9, 0xA:
            break
        default:
            return protocolError("reserved opcode \(opcode)")
        }
        if isControl && !isFinal {
            return protocolError("fragmented control frame")
        }
        return nil
    }

    /// A control frame is whole: a close frame's status and reason are checked. On
    /// success its bytes are released; a failure leaves them held (never released).
    private mutating func finishControlFrame(_ opcode: UInt8) -> Failure? {
        if opcode == 0x8 {
            if let failure = checkClosePayload() { return failure }
            phase = .closed
        } else {
            finishedPing = opcode == 0x9
            phase = .header
        }
        held = 0
        return nil
    }

    private mutating func checkClosePayload() -> Failure? {
        if controlPayload.count == 1 {
            return protocolError("close frame with a 1-byte payload")
        }
        guard controlPayload.count >= 2 else { return nil }
        let code = UInt16(controlPayload[0]) << 8 | UInt16(controlPayload[1])
        guard CloseCode(rawValue: code).isValidOnTheWire else {
            return protocolError("close code \(code) is not allowed")
        }
        guard String(validating: controlPayload[2...], as: UTF8.self) != nil else {
            return Failure(code: .invalidPayload, reason: "close reason is not valid UTF-8")
        }
        peerCloseCode = code
        return nil
    }

    private func protocolError(_ reason: String) -> Failure {
        Failure(code: .protocolError, reason: reason)
    }
}
