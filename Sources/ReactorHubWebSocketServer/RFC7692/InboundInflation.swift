import ReactorHubDeflate
import ReactorHubProtocol

/// The inbound side of permessage-deflate on one connection (RFC 7692 section 7.2.2):
/// each message is taken as the gate saw it begin (`FrameGate.MessageStart`), and a
/// compressed one is inflated on the fly into `InboundAssembler`, whose limit counts the
/// inflated bytes: a message whose inflated size passes `maxMessageBytes` is refused with
/// 1009 as soon as it does, whatever its compressed size (PROTOCOL.md "Transport"). An
/// inflater is borrowed from the pool for the message and given back at its end. An
/// inflated text message is checked as UTF-8 here (lws saw it as binary): 1007.
struct InboundInflation {
    /// The window the client compresses within (the `client_max_window_bits` agreed).
    let windowBits: Int
    /// How the message under way began; nil between messages.
    private(set) var current: FrameGate.MessageStart?
    private var inflater: MessageInflater?

    init(windowBits: Int) {
        self.windowBits = windowBits
    }

    /// Whether an inflater is lent to this connection now.
    var holdsInflater: Bool { inflater != nil }

    /// Feeds a chunk of payload lws delivered. `start` tells how a message began, asked
    /// when a new one begins; `isBinary` is what lws says of the frame (binary for a
    /// compressed text message, the gate having rewritten it).
    mutating func receive(
        _ chunk: UnsafeRawBufferPointer,
        into assembler: inout InboundAssembler,
        start: () -> FrameGate.MessageStart?,
        isBinary: Bool,
        isFinalFrame: Bool,
        remainingInFrame: Int,
        pool: InflaterPool
    ) -> InboundAssembler.Outcome {
        let message = current ?? start() ?? FrameGate.MessageStart(compressed: false, binary: isBinary)
        let ends = isFinalFrame && remainingInFrame == 0
        current = ends ? nil : message
        guard message.compressed else {
            return assembler.receive(chunk, isBinary: message.binary, isFinalFrame: isFinalFrame, remainingInFrame: remainingInFrame)
        }
        let inflater = self.inflater ?? pool.take(windowBits: windowBits)
        self.inflater = ends ? nil : inflater
        var refusal: InboundAssembler.Outcome?
        let outcome = inflater.inflate(chunk, final: ends) { piece in
            // The announced remainder is compressed bytes: only what is inflated counts.
            let fed = assembler.receive(piece, isBinary: message.binary, isFinalFrame: false, remainingInFrame: 0)
            if case .refuse = fed {
                refusal = fed
                return false
            }
            return true
        }
        if ends { pool.give(inflater) }
        if let refusal {
            release(to: pool)
            return refusal
        }
        if case .invalid(let reason) = outcome {
            release(to: pool)
            return .refuse(.protocolError, reason)
        }
        guard ends else { return .incomplete }
        let whole = assembler.receive(UnsafeRawBufferPointer(start: nil, count: 0), isBinary: message.binary, isFinalFrame: true, remainingInFrame: 0)
        if case .message(let bytes) = whole, String(validating: bytes, as: UTF8.self) == nil {
            return .refuse(.invalidPayload, "invalid UTF-8 in a text message")
        }
        return whole
    }

    /// Gives back the inflater of a message under way (the connection is closing, or the
    /// message was refused).
    mutating func release(to pool: InflaterPool) {
        if let inflater {
            pool.give(inflater)
            self.inflater = nil
        }
        current = nil
    }
}
