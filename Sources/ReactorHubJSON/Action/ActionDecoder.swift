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
/// needs a hand-written decoder. After decoding, members the initializer never asked
/// for are reported (a typo such as `citty`). `type` is reserved for the action's name,
/// so an associated value labeled `type` cannot be sent.
public struct ActionDecoder: Sendable {
    /// Values every nested decoder sees in its `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Decodes one action payload.
    public func decode<Action: Decodable>(_ type: Action.Type, from payload: JSONValue) throws(ActionDecodingError) -> Action {
        let name: String
        let members: JSONObject
        switch payload {
        case .string(let text):
            name = text
            members = JSONObject()
        case .object(let object):
            guard let typeValue = object["type"] else {
                throw ActionDecodingError(action: nil, problem: .missingType)
            }
            guard case .string(let text) = typeValue else {
                throw ActionDecodingError(action: nil, problem: .typeNotAString(got: typeValue.kind.phrase))
            }
            name = text
            members = object
        default:
            throw ActionDecodingError(action: nil, problem: .notAnAction(got: payload.kind.phrase))
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
                if let unknown = members.first(where: { $0.key != "type" && !known.contains($0.key) })?.key {
                    throw ActionDecodingError(action: name, problem: .unknownMember(member: unknown, members: schema.members))
                }
            }
            throw failure
        }
        if let unknown = members.first(where: { $0.key != "type" && !decoder.readMembers.contains($0.key) })?.key {
            let schema = ActionSchema(describing: Action.self).case(named: name)
            throw ActionDecodingError(action: name, problem: .unknownMember(member: unknown, members: schema?.members ?? []))
        }
        return action
    }
}
