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

    /// `checksums`: the client asked for a `sum` on this reactor's frames (PROTOCOL.md
    /// "Checksums (opt-in)"); the latest join's choice holds.
    case join(ReactorAddress, since: ResumePoint?, checksums: Bool = false)
    case leave(ReactorAddress)
    /// `id`: the client's idempotent action id (PROTOCOL.md "Actions that are safe to resend").
    /// The payload is the action as written in the message (checked, decoded by its instance).
    case action(ReactorAddress, ActionPayload, id: String?)
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

    /// The members whose place in the message is kept: `ref` (echoed as written) and
    /// `action` (decoded by its instance from the bytes).
    private static let rangedMembers = ["ref", "action"]

    package static func parse(_ bytes: [UInt8]) -> Result<ClientRequest, Failure> {
        if let request = plainAction(bytes) { return .success(request) }
        return parseInFull(bytes)
    }

    /// `parse` without its shortcut for the usual action message (the tests hold the two to
    /// the same answers).
    package static func parseInFull(_ bytes: [UInt8]) -> Result<ClientRequest, Failure> {
        // The action is left as bytes (checked as strictly as the rest): its instance
        // decodes it from them, with no JSON tree in between.
        let parsed: (value: JSONValue, ranges: [Range<Int>?])
        do {
            parsed = try JSONParser().parse(bytes, rangesOf: rangedMembers, unparsed: "action")
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
        if let candidate = object["ref"], let range = parsed.ranges[0] {
            guard let valid = Ref(candidate, writtenAt: range, in: bytes) else {
                return .failure(Failure(error: ProtocolError(
                    .badRequest, "'ref' must be a string or a number of at most \(Ref.maximumLength) characters as written"
                ), ref: nil))
            }
            ref = valid
        }
        let action = parsed.ranges[1].map { ActionPayload(checkedJSON: bytes, range: $0) }
        return parse(object, action: action, ref: ref)
    }

    /// The usual action message, `{"type":"action","reactor":…,"action":…}` with an
    /// optional `ref` and `id`, every string printable ASCII without escapes, read without
    /// a JSON tree (`JSONParser.plainObjectMembers`): the request `parseInFull` makes of it.
    /// Nil for any other message and for one with a problem, which `parseInFull` answers.
    package static func plainAction(_ bytes: [UInt8]) -> ClientRequest? {
        var typed = false
        var reactor: Range<Int>?, action: PlainMember?, id: Range<Int>?
        var ref: PlainMember?
        let plain = bytes.withUnsafeBufferPointer { buffer in
            JSONParser().plainObjectMembers(buffer, notingMembersOf: "action") { member in
                let key = member.key
                if buffer.holds("type", at: key) {
                    guard !typed, buffer.holds(#""action""#, at: member.value) else { return false }
                    typed = true
                } else if buffer.holds("reactor", at: key) {
                    guard reactor == nil, member.kind == .string else { return false }
                    reactor = member.value
                } else if buffer.holds("action", at: key) {
                    guard action == nil, member.kind != .integer else { return false }
                    action = member
                } else if buffer.holds("ref", at: key) {
                    guard ref == nil, member.kind != .container else { return false }
                    ref = member
                } else if buffer.holds("id", at: key) {
                    guard id == nil, member.kind == .string else { return false }
                    id = member.value
                } else {
                    return false
                }
                return true
            }
        }
        guard plain, typed, let reactor, let action,
              let address = ReactorAddress(utf8: bytes[reactor.dropFirst().dropLast()])
        else { return nil }
        var idText: String?
        if let id {
            guard (1...maxActionIDLength).contains(id.count - 2) else { return nil }
            idText = String(decoding: bytes[id.dropFirst().dropLast()], as: UTF8.self)
        }
        var refValue: Ref?
        if let ref {
            // ASCII: a character per byte; a string's quotes are not counted.
            guard ref.value.count - (ref.kind == .string ? 2 : 0) <= Ref.maximumLength else { return nil }
            refValue = Ref(plainJSON: bytes[ref.value])
        }
        let payload = action.members.map { ActionPayload(checkedJSON: bytes, range: action.value, members: $0) }
            ?? ActionPayload(checkedJSON: bytes, range: action.value)
        return ClientRequest(message: .action(address, payload, id: idText), ref: refValue)
    }

    private static func parse(_ object: JSONObject, action: ActionPayload?, ref: Ref?) -> Result<ClientRequest, Failure> {
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
            var checksums = false
            if let value = object["checksums"] {
                guard case .bool(let flag) = value else {
                    return fail(.badRequest, "member 'checksums' must be a boolean (true: every snapshot, resumed and patch of this reactor carries a 'sum'), got \(value.kind.phrase)")
                }
                checksums = flag
            }
            return .success(ClientRequest(message: .join(address, since: since, checksums: checksums), ref: ref))
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
            guard let action else {
                return fail(.badRequest, "'action' needs member 'action': an action name or an object with a 'type'")
            }
            switch actionID(in: object) {
            case .failure(let error):
                return .failure(Failure(error: error, ref: ref))
            case .success(let id):
                return .success(ClientRequest(message: .action(address, action, id: id), ref: ref))
            }
        }
    }

    /// The `action` and optional `id` of an HTTP action body (API.md): `what` names the
    /// body in the refusal.
    package static func actionMembers(of object: JSONObject, in what: String) -> Result<(action: JSONValue, id: String?), ProtocolError> {
        guard let action = object["action"] else {
            return .failure(ProtocolError(.badRequest, "\(what) needs member 'action': an action name or an object with a 'type'"))
        }
        return actionID(in: object).map { (action, $0) }
    }

    /// The optional `id` of an action message or body (PROTOCOL.md "Actions that are safe to resend").
    private static func actionID(in object: JSONObject) -> Result<String?, ProtocolError> {
        guard let idValue = object["id"], idValue != .null else { return .success(nil) }
        guard case .string(let text) = idValue, (1...maxActionIDLength).contains(text.count) else {
            return .failure(ProtocolError(
                .badRequest, "member 'id' must be a string of 1 to \(maxActionIDLength) characters (unique per action, e.g. a UUID)"
            ))
        }
        return .success(text)
    }

    private static var typeList: String { ClientMessage.typeNames.joined(separator: ", ") }
}
