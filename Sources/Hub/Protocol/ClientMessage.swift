import JSON

/// A message from a client, validated (PROTOCOL.md "Client to server").
enum ClientMessage: Equatable {
    /// Where a reconnecting client left off.
    struct ResumePoint: Equatable {
        var epoch: String
        var version: Int
    }

    case join(ReactorAddress, since: ResumePoint?)
    case leave(ReactorAddress)
    /// `id`: the client's idempotent action id (PROTOCOL.md "Actions that are safe to resend").
    case action(ReactorAddress, JSONValue, id: String?)
    case ping
    /// A token, to authenticate or refresh (PROTOCOL.md "Identity and rights").
    case auth(token: String)

    /// The message types, in the order error messages list them.
    static let typeNames = ["join", "leave", "action", "ping", "auth"]
}

/// A parsed message: what it asks, and the `ref` to carry back on every reply.
struct ClientRequest: Equatable {
    var message: ClientMessage
    var ref: JSONValue?
}

/// Turns a text frame into a `ClientRequest`, or into the error to answer, carrying the
/// message's `ref` whenever it was valid.
enum ClientMessageParser {
    /// A refusal with the ref to echo (nil when the ref itself was the problem or absent).
    struct Failure: Error, Equatable {
        var error: ProtocolError
        var ref: JSONValue?
    }

    static let maxRefLength = 64
    static let maxActionIDLength = 64

    static func parse(_ bytes: [UInt8]) -> Result<ClientRequest, Failure> {
        let value: JSONValue
        do {
            value = try JSONParser().parse(bytes)
        } catch {
            return .failure(Failure(error: ProtocolError(.badJSON, "message is not valid JSON: \(error.message)"), ref: nil))
        }
        return parse(value)
    }

    static func parse(_ value: JSONValue) -> Result<ClientRequest, Failure> {
        guard case .object(let object) = value else {
            return .failure(Failure(error: ProtocolError(
                .badRequest, "a message must be a JSON object with a 'type' (one of \(typeList)), got \(value.kind.phrase)"
            ), ref: nil))
        }
        var ref: JSONValue?
        if let candidate = object["ref"] {
            guard let valid = validRef(candidate) else {
                return .failure(Failure(error: ProtocolError(
                    .badRequest, "'ref' must be a string or a number of at most \(maxRefLength) characters"
                ), ref: nil))
            }
            ref = valid
        }
        func fail(_ code: ProtocolError.Code, _ message: String) -> Result<ClientRequest, Failure> {
            .failure(Failure(error: ProtocolError(code, message), ref: ref))
        }
        guard let typeValue = object["type"] else {
            return fail(.badRequest, "missing member 'type'; expected one of \(typeList)")
        }
        guard case .string(let type) = typeValue else {
            return fail(.badRequest, "member 'type' must be a string (one of \(typeList)), got \(typeValue.kind.phrase)")
        }
        if type == "ping" {
            return .success(ClientRequest(message: .ping, ref: ref))
        }
        if type == "auth" {
            guard case .string(let token)? = object["token"], !token.isEmpty else {
                return fail(.badRequest, "'auth' needs member 'token': a JWT string")
            }
            return .success(ClientRequest(message: .auth(token: token), ref: ref))
        }
        guard ClientMessage.typeNames.contains(type) else {
            return fail(.badRequest, "unknown message type '\(type)'; types: \(typeList)")
        }
        guard let reactorValue = object["reactor"] else {
            return fail(.badRequest, "'\(type)' needs member 'reactor' (a string KIND/ID such as \"counter/lobby\")")
        }
        guard case .string(let reactorText) = reactorValue else {
            return fail(.badRequest, "member 'reactor' must be a string KIND/ID, got \(reactorValue.kind.phrase)")
        }
        guard let address = ReactorAddress(reactorText) else {
            return fail(
                .invalidReactor,
                "reactor address '\(reactorText)' is malformed; expected KIND/ID with KIND matching [a-z][a-z0-9-]{0,31} and ID matching [A-Za-z0-9._-]{1,64}"
            )
        }
        switch type {
        case "join":
            var since: ClientMessage.ResumePoint?
            if let sinceValue = object["since"], sinceValue != .null {
                guard case .object(let point) = sinceValue,
                      case .string(let epoch)? = point["epoch"],
                      case .int(let version)? = point["version"], version >= 0
                else {
                    return fail(.badRequest, "member 'since' must be {\"epoch\": string, \"version\": integer >= 0}")
                }
                since = .init(epoch: epoch, version: version)
            }
            return .success(ClientRequest(message: .join(address, since: since), ref: ref))
        case "leave":
            return .success(ClientRequest(message: .leave(address), ref: ref))
        default:
            guard let action = object["action"] else {
                return fail(.badRequest, "'action' needs member 'action': an action name or an object with a 'type'")
            }
            var id: String?
            if let idValue = object["id"], idValue != .null {
                guard case .string(let text) = idValue, (1...maxActionIDLength).contains(text.count) else {
                    return fail(.badRequest, "member 'id' must be a string of 1 to \(maxActionIDLength) characters (unique per action, e.g. a UUID)")
                }
                id = text
            }
            return .success(ClientRequest(message: .action(address, action, id: id), ref: ref))
        }
    }

    static func validRef(_ value: JSONValue) -> JSONValue? {
        // Careful: JSONValue is ExpressibleByNilLiteral, so a bare `nil` here could mean `.null`.
        switch value {
        case .string(let text) where text.count <= maxRefLength:
            return .some(value)
        case .int, .double:
            return .some(value)  // a number's JSON text is at most 24 characters
        default:
            return .none
        }
    }

    private static var typeList: String { ClientMessage.typeNames.joined(separator: ", ") }
}
