package import ReactorHubJSON

/// A message from a client, validated (PROTOCOL.md "Client to server").
package enum ClientMessage: Equatable {
    /// Where a reconnecting client left off.
    package struct ResumePoint: Equatable {
        package var epoch: String
        package var version: Int

        package init(epoch: String, version: Int) {
            self.epoch = epoch
            self.version = version
        }
    }

    case join(ReactorAddress, since: ResumePoint?)
    case leave(ReactorAddress)
    /// `id`: the client's idempotent action id (PROTOCOL.md "Actions that are safe to resend").
    case action(ReactorAddress, JSONValue, id: String?)
    case ping
    /// A token, to authenticate or refresh (PROTOCOL.md "Identity and rights").
    case auth(token: String)
    /// This connection's presence in a joined reactor; nil clears it.
    case presence(ReactorAddress, state: JSONValue?)

    /// The message types, in the order error messages list them.
    package static let typeNames = ["join", "leave", "action", "ping", "auth", "presence"]
}

/// A parsed message: what it asks, and the `ref` to carry back on every reply.
package struct ClientRequest: Equatable {
    package var message: ClientMessage
    package var ref: Ref?

    package init(message: ClientMessage, ref: Ref?) {
        self.message = message
        self.ref = ref
    }
}

/// Turns a text frame into a `ClientRequest`, or into the error to answer, carrying the
/// message's `ref` whenever it was valid.
package enum ClientMessageParser {
    /// A refusal with the ref to echo (nil when the ref itself was the problem or absent).
    package struct Failure: Error, Equatable {
        package var error: ProtocolError
        package var ref: Ref?

        package init(error: ProtocolError, ref: Ref?) {
            self.error = error
            self.ref = ref
        }
    }

    package static let maxActionIDLength = 64

    package static func parse(_ bytes: [UInt8]) -> Result<ClientRequest, Failure> {
        let parsed: (value: JSONValue, memberRanges: [String: Range<Int>])
        do {
            parsed = try JSONParser().parseWithMemberRanges(bytes)
        } catch {
            return .failure(Failure(error: ProtocolError(.badJSON, "message is not valid JSON: \(error.message)"), ref: nil))
        }
        let value = parsed.value
        guard case .object(let object) = value else {
            return .failure(Failure(error: ProtocolError(
                .badRequest, "a message must be a JSON object with a 'type' (one of \(typeList)), got \(value.kind.phrase)"
            ), ref: nil))
        }
        var ref: Ref?
        if let candidate = object["ref"], let range = parsed.memberRanges["ref"] {
            guard let valid = Ref(candidate, writtenAt: range, in: bytes) else {
                return .failure(Failure(error: ProtocolError(
                    .badRequest, "'ref' must be a string or a number of at most \(Ref.maximumLength) characters as written"
                ), ref: nil))
            }
            ref = valid
        }
        return parse(object, ref: ref)
    }

    private static func parse(_ object: JSONObject, ref: Ref?) -> Result<ClientRequest, Failure> {
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
                "reactor address '\(reactorText)' is malformed; expected \(ReactorAddress.ruleDescription)"
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
        case "presence":
            switch object["state"] {
            case .object?:
                return .success(ClientRequest(message: .presence(address, state: object["state"]), ref: ref))
            case .null?:
                return .success(ClientRequest(message: .presence(address, state: nil), ref: ref))
            default:
                return fail(.badRequest, "'presence' needs member 'state': a JSON object, or null to clear it")
            }
        default:
            switch actionMembers(of: object, in: "'action'") {
            case .failure(let error):
                return .failure(Failure(error: error, ref: ref))
            case .success(let (action, id)):
                return .success(ClientRequest(message: .action(address, action, id: id), ref: ref))
            }
        }
    }

    /// The `action` and optional `id` of an action message, or of an HTTP action body
    /// (API.md): `what` names the message or body in the refusal.
    package static func actionMembers(of object: JSONObject, in what: String) -> Result<(action: JSONValue, id: String?), ProtocolError> {
        guard let action = object["action"] else {
            return .failure(ProtocolError(.badRequest, "\(what) needs member 'action': an action name or an object with a 'type'"))
        }
        var id: String?
        if let idValue = object["id"], idValue != .null {
            guard case .string(let text) = idValue, (1...maxActionIDLength).contains(text.count) else {
                return .failure(ProtocolError(
                    .badRequest, "member 'id' must be a string of 1 to \(maxActionIDLength) characters (unique per action, e.g. a UUID)"
                ))
            }
            id = text
        }
        return .success((action, id))
    }

    private static var typeList: String { ClientMessage.typeNames.joined(separator: ", ") }
}
