import ReactorHubProtocol
import ReactorHubJSON

/// The reply to a resent action id: the first reply's message with the resend's `ref` in
/// place of the first one's and `"duplicate":true` (PROTOCOL.md "Actions that are safe to
/// resend").
enum DuplicateReply {
    /// Rewrites the remembered `reply`; nil when it is not a JSON object (never written so).
    static func message(from reply: [UInt8], ref: Ref?) -> OutboundMessage? {
        guard case .object(var object)? = try? JSONParser().parse(reply) else { return nil }
        var writer = JSONWriter()
        writer.writeByte(UInt8(ascii: "{"))
        var first = true
        func member(_ key: String, _ value: JSONValue) {
            if !first { writer.writeByte(UInt8(ascii: ",")) }
            first = false
            writer.writeKey(key)
            writer.writeValue(value)
        }
        if let type = object.removeValue(forKey: "type") { member("type", type) }
        if let reactor = object.removeValue(forKey: "reactor") { member("reactor", reactor) }
        _ = object.removeValue(forKey: "ref")
        if let ref {
            if !first { writer.writeByte(UInt8(ascii: ",")) }
            first = false
            writer.writeRaw(#""ref":"#)
            writer.bytes.append(contentsOf: ref.json)
        }
        for (key, value) in object { member(key, value) }
        member("duplicate", true)
        writer.writeByte(UInt8(ascii: "}"))
        return OutboundMessage(writer.bytes)
    }
}
