import ReactorHubEngine
import ReactorHubProtocol
import ReactorHubJSON
import Reactor

/// An action on its way to the owner of its instance (through the owner's inbox, or
/// straight to its runtime when the owner is this node), and the inbox's other messages:
/// a reply bounced back to the origin by a node that does not own the instance (any more),
/// and the owner's word that replies are on their way (their commits wait for `WAIT`).
enum InboxMessage: Sendable {
    /// Actions for one instance, in the order they arrived at the origin.
    case actions([ForwardedAction])
    /// A reply for the origin's sender `to` (already encoded, with its ref); `bounced`
    /// names the instance when a node that does not own it refused the action, so that the
    /// origin looks its owner up again.
    case reply(to: ReplyAddress, reply: [UInt8], bounced: String?)
    /// The origin's senders under `tokens` are to keep waiting: their actions' commits are
    /// written and wait for `cluster.minReplicas` replicas.
    case hold(tokens: [UInt64])

    var bytes: [UInt8] {
        var object = JSONObject()
        switch self {
        case .actions(let actions):
            object["kind"] = "actions"
            object["actions"] = .array(actions.map { action in
                var item = JSONObject()
                item["action"] = action.action
                if let id = action.id { item["id"] = .string(id) }
                if let ref = action.ref { item["ref"] = .string(ref.description) }
                item["to"] = .string(String(decoding: action.replyTo.bytes, as: UTF8.self))
                if let sender = action.sender { item["sender"] = SenderCoding.json(sender) }
                if let change = action.membership { item["membership"] = .string(change == .joined ? "joined" : "left") }
                return .object(item)
            })
        case .reply(let to, let reply, let bounced):
            object["kind"] = "reply"
            object["to"] = .string(String(decoding: to.bytes, as: UTF8.self))
            object["reply"] = .string(String(decoding: reply, as: UTF8.self))
            if let bounced { object["bounced"] = .string(bounced) }
        case .hold(let tokens):
            object["kind"] = "hold"
            object["tokens"] = .array(tokens.map { .string(String($0)) })
        }
        var writer = JSONWriter()
        writer.writeValue(.object(object))
        return writer.bytes
    }

    init(replyTo: ReplyAddress, reply: [UInt8], bounced: String? = nil) {
        self = .reply(to: replyTo, reply: reply, bounced: bounced)
    }

    init?(bytes: [UInt8]) {
        guard case .object(let object)? = try? JSONParser().parse(bytes), case .string(let kind)? = object["kind"] else {
            return nil
        }
        if kind == "actions" {
            guard case .array(let items)? = object["actions"] else { return nil }
            var actions: [ForwardedAction] = []
            for case .object(let item) in items {
                guard let action = item["action"], case .string(let toText)? = item["to"],
                      let to = ReplyAddress(bytes: Array(toText.utf8))
                else { return nil }
                let id: String? = if case .string(let text)? = item["id"] { text } else { nil }
                let ref: Ref? = if case .string(let text)? = item["ref"] { Ref(json: Array(text.utf8)) } else { nil }
                let sender = item["sender"].flatMap(SenderCoding.sender(from:))
                let membership: Membership.Change? = switch item["membership"] {
                case .string("joined")?: .joined
                case .string("left")?: .left
                default: nil
                }
                actions.append(ForwardedAction(action: action, id: id, ref: ref, replyTo: to, sender: sender, membership: membership))
            }
            self = .actions(actions)
            return
        }
        if kind == "hold" {
            guard case .array(let items)? = object["tokens"] else { return nil }
            self = .hold(tokens: items.compactMap { item in
                if case .string(let text) = item { UInt64(text) } else { nil }
            })
            return
        }
        guard case .string(let toText)? = object["to"], let to = ReplyAddress(bytes: Array(toText.utf8)) else { return nil }
        switch kind {
        case "reply":
            guard case .string(let reply)? = object["reply"] else { return nil }
            let bounced: String? = if case .string(let instance)? = object["bounced"] { instance } else { nil }
            self = .reply(to: to, reply: Array(reply.utf8), bounced: bounced)
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
    /// The client's `ref`, carried back in the reply (between nodes as a string holding its
    /// JSON text, so that it comes back byte for byte).
    let ref: Ref?
    /// Where the reply goes.
    let replyTo: ReplyAddress
    /// Who sent it (`Reactor.mutate(action:from:)`), wherever they are connected.
    var sender: Sender?
    /// Not an action: `sender` joined or left the instance on its node (no reply).
    var membership: Membership.Change?
}
