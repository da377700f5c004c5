/// Encodes a reactor's `Action` enum into its wire form (PROTOCOL.md, "Action payloads"),
/// through the enum's compiler-synthesized `Encodable` conformance: the inverse of
/// `ActionDecoder`, so `decode(encode(action)) == action` for every case.
///
/// ```
/// case increase                               {"type":"increase"}
/// case searchCityWeather(city: String)        {"type":"searchCityWeather","city":"Seoul"}
/// case note(String)                           {"type":"note","value":"Buy milk"}
/// case pair(Int, String)                      {"type":"pair","_0":1,"_1":"b"}
/// enum Raw: String { case start }             "start"
/// ```
///
/// The synthesized `encode(to:)` writes `{"caseName":{"label":value,…}}` with `_0`, `_1`
/// for unlabeled values; the encoder takes the case name for `type` and the members by
/// their wire names, following the same rule as the decoder (`_0` is `value` when the case
/// has no `_1`). `nil` optionals are left out, as `ActionDecoder` reads them. A `JSONValue`
/// is taken as an action already in wire form.
public struct ActionEncoder: Sendable {
    /// Values every nested encoder sees in its `userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates an encoder.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Encodes one action; a `JSONValue` is returned as it is.
    public func encode<Action: Encodable>(_ action: Action) throws(ActionEncodingError) -> JSONValue {
        if Action.self == JSONValue.self {
            return sameTypeCast(action, to: JSONValue.self)
        }
        let encoder = ActionWireEncoder(userInfo: userInfo)
        do {
            try action.encode(to: encoder)
        } catch let error as ActionEncodingError {
            throw error
        } catch {
            throw ActionEncodingError(action: encoder.name, problem: .invalidMember(member: encoder.currentMember ?? "?", reason: "\(error)"))
        }
        return try encoder.finish()
    }
}
