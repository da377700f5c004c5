/// Decodes a reactor's `Action` enum from its wire form (PROTOCOL.md, "Action payloads"),
/// through the enum's compiler-synthesized `Decodable` conformance.
///
/// ```
/// "increase"                                   case increase
/// {"type":"increase"}                          case increase
/// {"type":"searchCityWeather","city":"Seoul"}  case searchCityWeather(city: String)
/// {"type":"note","value":"Buy milk"}           case note(String)
/// ```
///
/// The synthesized `init(from:)` expects `{"caseName":{"label":value,…}}` with `_0`, `_1`
/// for unlabeled values; the decoder presents the wire object in that shape, so no action
/// needs a hand-written decoder (an action that is also `WireReadableAction` is read by it
/// first, and through `Decodable` when it declines). After decoding, members the
/// initializer never asked for are reported (a typo such as `citty`). `type` is reserved
/// for the action's name, so an associated value labeled `type` cannot be sent.
public struct ActionDecoder: Sendable {
    /// Values every nested decoder sees in its `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Decodes one action payload.
    public func decode<Action: Decodable>(_ type: Action.Type, from payload: JSONValue) throws(ActionDecodingError) -> Action {
        let (name, members) = try Self.nameAndMembers(of: payload)
        return try decode(type, name: name, members: .object(members))
    }

    /// Decodes one action payload, from the bytes it came in when it has them.
    public func decode<Action: Decodable>(_ type: Action.Type, from payload: ActionPayload) throws(ActionDecodingError) -> Action {
        var name = ""
        return try decode(type, from: payload, name: &name)
    }

    /// Decodes one action payload and sets `name` to the action's name (its wire `type`).
    public func decode<Action: Decodable>(
        _ type: Action.Type, from payload: ActionPayload, name: inout String
    ) throws(ActionDecodingError) -> Action {
        let members: ActionMembers
        switch payload.storage {
        case .value(let value):
            let object: JSONObject
            (name, object) = try Self.nameAndMembers(of: value)
            members = .object(object)
        case .bytes(let bytes, _, let noted?):
            (name, members) = try Self.nameAndMembers(noted, in: bytes)
        case .bytes(let bytes, let range, nil):
            (name, members) = try Self.nameAndMembers(at: range, in: bytes)
        }
        return try decode(type, name: name, members: members)
    }

    /// The action read by `Readable.init(wire:)` (`Readable` is `Action`), or nil.
    private static func read<Readable: WireReadableAction, Action>(
        _: Readable.Type, _ wire: ActionWireMembers, as _: Action.Type
    ) -> Action? {
        Readable(wire: wire).map { sameTypeCast($0, to: Action.self) }
    }

    private static func nameAndMembers(of payload: JSONValue) throws(ActionDecodingError) -> (String, JSONObject) {
        switch payload {
        case .string(let text):
            return (text, JSONObject())
        case .object(let object):
            guard let typeValue = object["type"] else {
                throw ActionDecodingError(action: nil, problem: .missingType)
            }
            guard case .string(let text) = typeValue else {
                throw ActionDecodingError(action: nil, problem: .typeNotAString(got: typeValue.kind.phrase))
            }
            return (text, object)
        default:
            throw ActionDecodingError(action: nil, problem: .notAnAction(got: payload.kind.phrase))
        }
    }

    /// The name and members of the action written at `range`: the members' values are
    /// found, not parsed (each is parsed when the action reads it).
    private static func nameAndMembers(at range: Range<Int>, in bytes: [UInt8]) throws(ActionDecodingError) -> (String, ActionMembers) {
        let scanned: [(key: String, range: Range<Int>)]? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = ParserCursor(bytes: UnsafeBufferPointer(rebasing: buffer[..<range.upperBound]), maximumDepth: JSONParser.defaultMaximumDepth)
            cursor.position = range.lowerBound
            cursor.skipWhitespace()
            guard cursor.position < range.upperBound, buffer[cursor.position] == UInt8(ascii: "{") else { return nil }
            return cursor.scanCheckedObjectMembers()
        }
        guard let members = scanned else {
            let value = ActionMembers.parse(range, in: bytes)
            guard case .string(let text) = value else {
                throw ActionDecodingError(action: nil, problem: .notAnAction(got: value.kind.phrase))
            }
            return (text, .none)
        }
        return try nameAndMembers(members, in: bytes)
    }

    /// The name and members of an action object whose members were written at `members`.
    private static func nameAndMembers(_ members: [(key: String, range: Range<Int>)], in bytes: [UInt8]) throws(ActionDecodingError) -> (String, ActionMembers) {
        guard let type = members.last(where: { JSONObject.sameKey($0.key, "type") }) else {
            throw ActionDecodingError(action: nil, problem: .missingType)
        }
        let typeValue = ActionMembers.parse(type.range, in: bytes)
        guard case .string(let text) = typeValue else {
            throw ActionDecodingError(action: nil, problem: .typeNotAString(got: typeValue.kind.phrase))
        }
        return (text, .bytes(bytes, members))
    }

    private func decode<Action: Decodable>(_ type: Action.Type, name: String, members: ActionMembers) throws(ActionDecodingError) -> Action {
        if let readable = Action.self as? any WireReadableAction.Type,
           let action = Self.read(readable, ActionWireMembers(name: name, members: members), as: Action.self) {
            return action
        }
        let decoder = ActionWireDecoder(name: name, members: members, userInfo: userInfo)
        let action: Action
        do {
            action = try Action(from: decoder)
        } catch {
            let failure = (error as? ActionDecodingError) ?? decoder.translate(error, for: Action.self)
            // A missing member next to an unknown one is usually a typo (`citty` for
            // `city`): name the member that is not the action's, which is the real mistake.
            if case .missingMember = failure.problem, let schema = ActionSchema(describing: Action.self).case(named: name) {
                let known = Set(schema.members.map(\.name))
                if let unknown = (0..<members.count).lazy.map(members.name(at:)).first(where: { $0 != "type" && !known.contains($0) }) {
                    throw ActionDecodingError(action: name, problem: .unknownMember(member: unknown, members: schema.members))
                }
            }
            throw failure
        }
        if let unknown = decoder.firstUnreadMember {
            let schema = ActionSchema(describing: Action.self).case(named: name)
            throw ActionDecodingError(action: name, problem: .unknownMember(member: unknown, members: schema?.members ?? []))
        }
        return action
    }
}
