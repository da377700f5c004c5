import Reactor
import ReactorHubJSON

/// A `Sender` as the inbox carries it between nodes: `{user, claims, session, node, transport}`.
enum SenderCoding {
    static func json(_ sender: Sender) -> JSONValue {
        var object = JSONObject()
        object["user"] = sender.user.map(JSONValue.string) ?? .null
        var claims = JSONObject()
        for (name, claim) in sender.claims {
            claims[name] = json(claim)
        }
        object["claims"] = .object(claims)
        object["session"] = .string(sender.session)
        object["node"] = sender.node.map(JSONValue.string) ?? .null
        object["transport"] = .string(sender.transport.rawValue)
        return .object(object)
    }

    static func sender(from value: JSONValue) -> Sender? {
        guard case .object(let object) = value, case .string(let session)? = object["session"] else { return nil }
        var claims: [String: Claim] = [:]
        if case .object(let given)? = object["claims"] {
            for (name, value) in given {
                claims[name] = claim(value)
            }
        }
        return Sender(
            user: object["user"]?.stringValue, claims: claims, session: session, node: object["node"]?.stringValue,
            transport: object["transport"]?.stringValue.flatMap(Sender.Transport.init(rawValue:)) ?? .webSocket
        )
    }

    private static func json(_ claim: Claim) -> JSONValue {
        switch claim {
        case .string(let text): .string(text)
        case .integer(let number): .int(number)
        case .number(let number): .double(number)
        case .bool(let flag): .bool(flag)
        case .null: .null
        case .json(let text): .object(["json": .string(text)])
        }
    }

    private static func claim(_ value: JSONValue) -> Claim {
        switch value {
        case .string(let text): .string(text)
        case .int(let number): .integer(number)
        case .double(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .object(let object): object["json"]?.stringValue.map(Claim.json) ?? .null
        default: .null
        }
    }
}
