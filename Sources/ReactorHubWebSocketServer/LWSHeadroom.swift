import ReactorHubLibWebSockets
import ReactorHubProtocol

/// The bytes libwebsockets writes a frame header into, in front of a payload (`LWS_PRE`):
/// this transport's `frameHeadroom`.
enum LWSHeadroom {
    static let bytes = LWS.pre

    /// `message` itself when it has the headroom lws needs, else a copy that has it (a
    /// message written by a codec that was not told this transport's headroom).
    static func ensured(_ message: OutboundMessage) -> OutboundMessage {
        guard message.headroom < bytes else { return message }
        return message.withBytes { OutboundMessage($0, headroom: bytes, label: message.label) }
    }
}
