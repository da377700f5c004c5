import JSON
import Transport

/// The reply to a resent action id: the first reply's message with the resend's `ref` in
/// place of the first one's and `"duplicate":true` (PROTOCOL.md "Actions that are safe to
/// resend").
enum DuplicateReply {
    /// Rewrites the remembered `reply`; nil when it is not a JSON object (never written so).
    static func message(from reply: [UInt8], ref: JSONValue?) -> OutboundMessage? {
        guard case .object(var object)? = try? JSONParser().parse(reply) else { return nil }
        var rewritten = JSONObject(minimumCapacity: object.count + 2)
        if let type = object.removeValue(forKey: "type") { rewritten["type"] = type }
        if let reactor = object.removeValue(forKey: "reactor") { rewritten["reactor"] = reactor }
        _ = object.removeValue(forKey: "ref")
        if let ref { rewritten["ref"] = ref }
        for (key, value) in object { rewritten[key] = value }
        rewritten["duplicate"] = true
        var writer = JSONWriter()
        writer.writeValue(.object(rewritten))
        return OutboundMessage(writer.bytes)
    }
}
