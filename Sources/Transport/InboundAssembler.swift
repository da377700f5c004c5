/// Reassembles the chunks libwebsockets hands over into whole messages and enforces the
/// inbound rules of PROTOCOL.md: text only (1003 otherwise) and at most `maxMessageBytes`
/// per message (1009 otherwise). UTF-8 validity is checked by libwebsockets (1007).
struct InboundAssembler {
    /// The result of feeding one chunk.
    enum Outcome: Equatable {
        /// More chunks are needed.
        case incomplete
        /// A whole message.
        case message([UInt8])
        /// The connection must be closed with this code and reason.
        case refuse(CloseCode, String)
    }

    let maxMessageBytes: Int
    private var buffer: [UInt8] = []

    init(maxMessageBytes: Int) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Bytes held for a message still being received.
    var pendingBytes: Int { buffer.count }

    /// Feeds one chunk. `remainingInFrame` is what the current frame still has to come;
    /// the message is whole when the frame is final and nothing remains.
    mutating func receive(
        _ chunk: UnsafeRawBufferPointer,
        isBinary: Bool,
        isFinalFrame: Bool,
        remainingInFrame: Int
    ) -> Outcome {
        if isBinary {
            buffer = []
            return .refuse(.unsupportedData, "binary frames are not accepted; send JSON text")
        }
        if buffer.count + chunk.count + remainingInFrame > maxMessageBytes {
            buffer = []
            return .refuse(.messageTooBig, "message exceeds \(maxMessageBytes) bytes")
        }
        let whole = isFinalFrame && remainingInFrame == 0
        if whole && buffer.isEmpty {
            return .message(Array(chunk))
        }
        buffer.append(contentsOf: chunk)
        guard whole else { return .incomplete }
        defer { buffer = [] }
        return .message(buffer)
    }
}
