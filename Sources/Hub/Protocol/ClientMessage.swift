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
    case action(ReactorAddress, JSONValue)
    case ping

    /// The message types, in the order error messages list them.
    static let typeNames = ["join", "leave", "action", "ping"]
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

    /// The most characters a `ref` takes when written back: Unicode scalars, quotes aside,
    /// an escaped one counted as its escape (see `writtenLength(of:)`).
    static let maxRefLength = 64

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
            return .success(ClientRequest(message: .action(address, action), ref: ref))
        }
    }

    static func validRef(_ value: JSONValue) -> JSONValue? {
        // Careful: JSONValue is ExpressibleByNilLiteral, so a bare `nil` here could mean `.null`.
        switch value {
        case .string(let text) where writtenLength(of: text) <= maxRefLength:
            return .some(value)
        case .int, .double:
            return .some(value)  // a number's JSON text is at most 24 characters
        default:
            return .none
        }
    }

    /// The characters `text` takes in a reply, between the quotes: its Unicode scalars, with
    /// a quote, a backslash or a control character counted as the escape the writer makes
    /// of it (`\n` is 2, U+0001 is 6).
    ///
    /// Not `Character`s: one character can hold any number of scalars (`\r\n`, a letter
    /// with combining marks), and the ref is echoed on every reply to the message.
    static func writtenLength(of text: String) -> Int {
        // Escaping never shortens a scalar: past the limit in scalars is past it written.
        var scalars = 0
        for _ in text.unicodeScalars {
            scalars += 1
            if scalars > maxRefLength { return scalars }
        }
        return String(decoding: JSONValue.string(text).serialized(), as: UTF8.self).unicodeScalars.count - 2
    }

    private static var typeList: String { ClientMessage.typeNames.joined(separator: ", ") }
}
