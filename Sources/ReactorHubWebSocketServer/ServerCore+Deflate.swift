import ReactorHubLibWebSockets
import ReactorHubDeflate
import ReactorHubProtocol
import ReactorHubLogging

/// permessage-deflate (RFC 7692), the server's own: libwebsockets runs no extension. The
/// upgrade's answer is written here (`DeflateNegotiation`); inbound, the receive tap's
/// gate clears RSV1 before lws parses a frame and `InboundInflation` inflates; outbound, a
/// frame of `compressionThreshold` bytes or more is compressed once (the message keeps its
/// compressed form, `OutboundMessage.compressed`) and the same bytes, framed with RSV1,
/// are written to every connection that negotiated the extension.
extension ServerCore {
    /// Frames shorter than this go plain (PROTOCOL.md allows it below 1024 bytes).
    static let compressionThreshold = 1024

    /// The agreement on the extension for an upgrade, or nil to go without it: off by
    /// configuration, no offer the server accepts, or no receive tap to clear RSV1 ahead
    /// of lws. On a TLS port lws reads through `SSL_read`, where the tap sees only
    /// ciphertext: a client's compressed frame would reach lws with RSV1 set (a 1002), so
    /// the extension is declined there.
    func deflateNegotiation(_ wsi: OpaquePointer) -> DeflateNegotiation? {
        guard configuration.compression, configuration.tls == nil, ReceiveTap.isInstalled else { return nil }
        return DeflateNegotiation(offers: extensionOffers(wsi))
    }

    /// The request's `Sec-WebSocket-Extensions`: under the name the receive tap gave it
    /// (`RequestHeadMeter.renamedExtensionsHeader`), else as lws parsed it.
    private func extensionOffers(_ wsi: OpaquePointer) -> String? {
        let name = RequestHeadMeter.renamedExtensionsHeader
        let nameText = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        let length = LWS.customHeaderLength(wsi, nameText, Int32(name.utf8CodeUnitCount))
        guard length >= 0 else { return header(wsi, .extensions) }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        let copied = LWS.copyCustomHeader(wsi, &buffer, Int32(buffer.count), nameText, Int32(name.utf8CodeUnitCount))
        return copied >= 0 ? Self.text(buffer, count: copied) : nil
    }

    /// `LWS_CALLBACK_ADD_HEADERS` of an upgrade: answers the extension when agreed.
    func addUpgradeHeaders(_ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?) -> Int32 {
        guard let input, LWS.headerLength(wsi, .upgrade) > 0, let agreement = deflateNegotiation(wsi) else {
            return 0
        }
        guard LWS.addHeader(wsi, toResponse: input, name: "sec-websocket-extensions:", value: agreement.response) else {
            logger.warning("no room for the permessage-deflate answer; upgrade refused")
            return 1
        }
        return 0
    }

    /// What goes on the wire for `message` on `connection`: its compressed form, once made
    /// for every connection, when the connection negotiated the extension and the message
    /// is long enough; else the message as it is.
    func wireFrame(_ message: OutboundMessage, on connection: Connection, binary: Bool = false) -> WireFrame {
        guard connection.deflates, message.count >= Self.compressionThreshold else { return WireFrame(message: message, compressed: false) }
        let compressed = message.compressed { plain in
            Self.compress(plain, opcode: binary ? 0x2 : 0x1, with: deflater)
        }
        return WireFrame(message: compressed, compressed: true)
    }

    /// `message` compressed, in a message whose headroom ends with its frame header (FIN,
    /// RSV1, `opcode`), written once: writers send header and payload as they are.
    static func compress(_ message: OutboundMessage, opcode: UInt8, with deflater: MessageDeflater) -> OutboundMessage {
        message.withBytes { plain in
            deflater.compress(plain) { compressed in
                OutboundMessage(count: compressed.count, headroom: LWSHeadroom.bytes + 10) { payload in
                    _ = payload.initialize(from: compressed.bindMemory(to: UInt8.self))
                    let length = compressed.count
                    let header = payload.baseAddress! - FrameBatch.headerSize(length)
                    _ = FrameBatch.writeHeader(header, first: 0xC0 | opcode, length: length)
                }
            }
        }
    }

    /// Writes a compressed frame made by `compress`: its header and payload, as they are.
    func writeCompressed(_ connection: Connection, _ message: OutboundMessage) -> Bool {
        let header = FrameBatch.headerSize(message.count)
        if LWS.writeFrames(connection.wsi, message.payloadPointer - header, header + message.count) < 0 {
            logger.debug("write failed; closing", metadata: ["session": connection.id.description])
            return false
        }
        return true
    }
}

/// A message as it goes on the wire: plain, or compressed (RSV1).
struct WireFrame {
    var message: OutboundMessage
    var compressed: Bool
}
