/// Reassembles the chunks libwebsockets hands over into whole messages and enforces the
/// inbound rules of PROTOCOL.md: text only (1003 otherwise; the echo path also takes
/// binary) and at most `maxMessageBytes` per message (1009 otherwise, as soon as a
/// frame's announced length passes it). UTF-8 validity is checked by libwebsockets (1007).
package struct InboundAssembler {
    /// The result of feeding one chunk.
    package enum Outcome: Equatable {
        /// More chunks are needed.
        case incomplete
        /// A whole text message.
        case message([UInt8])
        /// A whole binary message (only with `acceptsBinary`).
        case binaryMessage([UInt8])
        /// The connection must be closed with this code and reason.
        case refuse(CloseCode, String)
    }

    package let maxMessageBytes: Int
    /// Binary messages are passed on rather than refused with 1003.
    package let acceptsBinary: Bool
    private var buffer: [UInt8] = []

    package init(maxMessageBytes: Int, acceptsBinary: Bool = false) {
        self.maxMessageBytes = maxMessageBytes
        self.acceptsBinary = acceptsBinary
    }

    /// Bytes held for a message still being received.
    package var pendingBytes: Int { buffer.count }

    /// Feeds one chunk. `remainingInFrame` is what the current frame still has to come;
    /// the message is whole when the frame is final and nothing remains.
    package mutating func receive(
        _ chunk: UnsafeRawBufferPointer,
        isBinary: Bool,
        isFinalFrame: Bool,
        remainingInFrame: Int
    ) -> Outcome {
        if isBinary && !acceptsBinary {
            buffer = []
            return .refuse(.unsupportedData, "binary frames are not accepted; send JSON text")
        }
        // Compared without adding the announced remainder, which may be near 2^63.
        if buffer.count + chunk.count > maxMessageBytes || remainingInFrame > maxMessageBytes - buffer.count - chunk.count {
            buffer = []
            return .refuse(.messageTooBig, "message exceeds \(maxMessageBytes) bytes")
        }
        let whole = isFinalFrame && remainingInFrame == 0
        if whole && buffer.isEmpty {
            return isBinary ? .binaryMessage(Array(chunk)) : .message(Array(chunk))
        }
        buffer.append(contentsOf: chunk)
        guard whole else { return .incomplete }
        defer { buffer = [] }
        return isBinary ? .binaryMessage(buffer) : .message(buffer)
    }
}
