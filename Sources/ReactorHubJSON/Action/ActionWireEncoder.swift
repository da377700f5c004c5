/// Receives a synthesized enum `encode(to:)` (`{"caseName":{members…}}`) and turns it
/// into the wire shape `{"type":"caseName",members…}`; a raw-value enum's single string
/// becomes the bare action name.
final class ActionWireEncoder: Encoder {
    enum Shape {
        case nothing
        case keyedCase
        case bareName(String)
        case refused(String)
    }

    let sendableUserInfo: [CodingUserInfoKey: any Sendable]
    let codingPath: [any CodingKey] = []
    private(set) var shape = Shape.nothing
    /// The case name, once the enum opened its case's container.
    private(set) var name: String?
    /// The wire name of the member being encoded, for error messages.
    var currentMember: String?
    private var members = JSONObject()
    /// Members whose value is still being written through a nested container.
    private var pending: [(name: String, encoder: ValueEncoder)] = []

    init(userInfo: [CodingUserInfoKey: any Sendable]) {
        self.sendableUserInfo = userInfo
    }

    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(ActionCaseEncodingContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        refuse("an array")
        return ValueEncoder(userInfo: sendableUserInfo, parent: nil, key: nil).unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        ActionNameEncodingContainer(encoder: self)
    }

    func refuse(_ got: String) {
        if case .refused = shape { return }
        shape = .refused(got)
    }

    /// The enum opened the container of case `name`; false when it already opened one.
    func openCase(_ name: String) -> Bool {
        switch shape {
        case .nothing:
            shape = .keyedCase
            self.name = name
            return true
        case .keyedCase:
            refuse("an object with several cases")
            return false
        default:
            return false
        }
    }

    func setBareName(_ text: String) {
        guard case .nothing = shape else {
            refuse("several values")
            return
        }
        shape = .bareName(text)
    }

    func set(_ value: JSONValue, forMember member: String) throws(ActionEncodingError) {
        guard member != "type" else {
            throw ActionEncodingError(action: name, problem: .reservedMember)
        }
        members.updateValue(value, forKey: member)
    }

    func encodeMember<Value: Encodable>(_ value: Value, as member: String) throws {
        currentMember = member
        let json: JSONValue
        do {
            json = try JSONValueEncoder(userInfo: sendableUserInfo).encode(value)
        } catch {
            throw ActionEncodingError(action: name, problem: .invalidMember(member: member, reason: Self.reason(error)))
        }
        try set(json, forMember: member)
    }

    /// A child encoder for a member written through a nested container or super encoder.
    func pendingMember(_ member: String, key: any CodingKey) -> ValueEncoder {
        let child = ValueEncoder(userInfo: sendableUserInfo, parent: nil, key: key)
        pending.append((member, child))
        return child
    }

    /// The wire form: the bare name, or `{"type":name,…members}`.
    func finish() throws(ActionEncodingError) -> JSONValue {
        switch shape {
        case .nothing:
            throw ActionEncodingError(action: nil, problem: .notAnAction(got: "nothing"))
        case .refused(let got):
            throw ActionEncodingError(action: name, problem: .notAnAction(got: got))
        case .bareName(let text):
            return .string(text)
        case .keyedCase:
            for (member, child) in pending {
                try set(child.finish() ?? .object([:]), forMember: member)
            }
            pending.removeAll()
            var object = JSONObject(minimumCapacity: members.count + 1)
            object.updateValue(.string(name ?? ""), forKey: "type")
            for (key, value) in members {
                object.updateValue(value, forKey: key)
            }
            return .object(object)
        }
    }

    static func reason(_ error: any Error) -> String {
        if let encodingError = error as? EncodingError, case .invalidValue(_, let context) = encodingError {
            return context.debugDescription
        }
        return "\(error)"
    }
}
