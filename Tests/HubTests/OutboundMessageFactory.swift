import Transport

enum OutboundMessageFactory {
    static func make(_ text: String) -> OutboundMessage {
        OutboundMessage(text: text, kind: .stateUpdate(StreamID(rawValue: 1)))
    }
}
