import JSON

/// An action on its way to the owner of its instance (through the owner's inbox, or
/// straight to its runtime when the owner is this node), and the inbox's other message:
/// a reply bounced back to the origin by a node that does not own the instance (any more).
enum InboxMessage: Sendable {
    case action(ForwardedAction)
    /// A reply for the origin's sender `to` (already encoded, with its ref).
    case reply(to: ReplyAddress, reply: [UInt8])

    var bytes: [UInt8] {
        var object = JSONObject()
        switch self {
        case .action(let action):
            object["kind"] = "action"
            object["action"] = action.action
            if let id = action.id { object["id"] = .string(id) }
            if let ref = action.ref { object["ref"] = ref }
            object["to"] = .string(String(decoding: action.replyTo.bytes, as: UTF8.self))
        case .reply(let to, let reply):
            object["kind"] = "reply"
            object["to"] = .string(String(decoding: to.bytes, as: UTF8.self))
            object["reply"] = .string(String(decoding: reply, as: UTF8.self))
        }
        var writer = JSONWriter()
        writer.writeValue(.object(object))
        return writer.bytes
    }

    init(_ action: ForwardedAction) {
        self = .action(action)
    }

    init(replyTo: ReplyAddress, reply: [UInt8]) {
        self = .reply(to: replyTo, reply: reply)
    }

    init?(bytes: [UInt8]) {
        guard case .object(let object)? = try? JSONParser().parse(bytes),
              case .string(let kind)? = object["kind"],
              case .string(let toText)? = object["to"],
              let to = ReplyAddress(bytes: Array(toText.utf8))
        else { return nil }
        switch kind {
        case "action":
            guard let action = object["action"] else { return nil }
            let id: String? = if case .string(let text)? = object["id"] { text } else { nil }
            self = .action(ForwardedAction(action: action, id: id, ref: object["ref"], replyTo: to))
        case "reply":
            guard case .string(let reply)? = object["reply"] else { return nil }
            self = .reply(to: to, reply: Array(reply.utf8))
        default:
            return nil
        }
    }
}

/// One client action as the owner receives it, wherever its sender is connected.
struct ForwardedAction: Sendable {
    /// The action payload as the client sent it (validated by the origin).
    let action: JSONValue
    /// The client's idempotent action id.
    let id: String?
    /// The client's `ref`, carried back in the reply.
    let ref: JSONValue?
    /// Where the reply goes.
    let replyTo: ReplyAddress
}
