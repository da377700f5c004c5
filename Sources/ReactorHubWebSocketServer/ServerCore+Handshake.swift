import ReactorHubProtocol
import ReactorHubLibWebSockets
import ReactorHubLogging

/// The RFC 6455 checks of an opening handshake (section 4.2.1), made before the other
/// upgrade decisions of `confirmUpgrade`.
extension ServerCore {
    /// The HTTP answer to an opening handshake that must not be upgraded (400, or 426 for
    /// another protocol version), or nil when it is well formed.
    func handshakeRefusal(_ wsi: OpaquePointer) -> OpeningHandshake.Refusal? {
        let request = OpeningHandshake(
            isGet: LWS.headerLength(wsi, .getURI) > 0,
            host: header(wsi, .host),
            connection: header(wsi, .connection),
            key: header(wsi, .key),
            version: header(wsi, .version)
        )
        guard let refusal = request.refusal else { return nil }
        logger.debug("refusing upgrade: malformed handshake", metadata: ["status": String(refusal.status), "reason": refusal.body])
        return refusal
    }

    /// Corrects the status line libwebsockets wrote at `start` (up to `cursor`): for an
    /// upgrade request, which lws answers before it has read the request's version, it
    /// writes `HTTP/1.0` (a WebSocket handshake is HTTP/1.1, RFC 6455 section 4.1), and it
    /// has no reason phrase for 426 or 431. The headers after the line are moved to fit.
    func correctStatusLine(
        _ wsi: OpaquePointer, status: UInt32, start: UnsafeMutablePointer<UInt8>, cursor: inout UnsafeMutablePointer<UInt8>?,
        end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        guard let written = cursor else { return false }
        let bytes = UnsafeMutableBufferPointer(start: start, count: written - start)
        guard let lineEnd = (0..<max(0, bytes.count - 1)).first(where: { bytes[$0] == 0x0D && bytes[$0 + 1] == 0x0A }) else {
            return true
        }
        let line = String(decoding: bytes[..<lineEnd], as: UTF8.self)
        let isUpgrade = LWS.headerLength(wsi, .upgrade) > 0
        let hasPhrase = !line.hasSuffix(" ")
        guard (isUpgrade && line.hasPrefix("HTTP/1.0")) || !hasPhrase else { return true }
        let version = isUpgrade ? "HTTP/1.1" : String(line.prefix(8))
        let phrase = hasPhrase ? String(line.split(separator: " ", maxSplits: 2).dropFirst(2).first ?? "") : HTTPResponse.reasonPhrase(Int(status))
        let corrected = Array("\(version) \(status) \(phrase)".utf8)
        let rest = bytes.count - lineEnd
        guard corrected.count + rest <= end - start else { return false }
        (start + corrected.count).update(from: start + lineEnd, count: rest)
        start.update(from: corrected, count: corrected.count)
        cursor = start + corrected.count + rest
        return true
    }
}
