/// Actions of enums that are only `Decodable`, as a reactor declares them
/// (`enum Action: Decodable, Sendable`): a client that shares the reactor's code sends them
/// without adding `Encodable`, which it could not add from another file (a synthesized
/// conformance must be declared with the type).
extension ActionEncoder {
    /// Encodes `action` into its wire form by reflection: the case and its values are read
    /// with `Mirror`, the members are named as `schema` describes the case (the schema the
    /// server derives from the same `Decodable` conformance, so the server decodes the
    /// result back into the same case). An `Encodable` action goes through `encode(_:)`.
    ///
    /// Each associated value must itself be `Encodable` (`String`, `Int`, a `Codable`
    /// struct…); a `nil` optional is left out, as `encode(_:)` does. A payload-free case of
    /// a type with its own `description` cannot be named by reflection and is refused.
    public func encode<Action: Decodable>(reflecting action: Action, schema: ActionSchema) throws(ActionEncodingError) -> JSONValue {
        if let encodable = action as? any Encodable {
            return try encode(encodable)
        }
        if let raw = action as? any RawRepresentable, let name = raw.rawValue as? String {
            return .string(name)
        }
        let mirror = Mirror(reflecting: action)
        guard mirror.displayStyle == .enum else {
            throw ActionEncodingError(action: nil, problem: .notAnAction(got: "a \(mirror.displayStyle.map { "\($0)" } ?? "value")"))
        }
        guard let payload = mirror.children.first, let name = payload.label else {
            // A case without values: reflection shows it only through its description.
            guard !(action is any CustomStringConvertible) else {
                throw ActionEncodingError(action: nil, problem: .notAnAction(got: "a case whose name \(Action.self)'s description hides"))
            }
            let name = String(describing: action)
            guard schema.case(named: name) != nil else {
                throw ActionEncodingError(action: name, problem: .notAnAction(got: "a case the schema of \(Action.self) does not list"))
            }
            return .object(["type": .string(name)])
        }
        guard let shape = schema.case(named: name) else {
            throw ActionEncodingError(action: name, problem: .notAnAction(got: "a case the schema of \(Action.self) does not list"))
        }
        // The values are a tuple, labeled or not; one unlabeled value is the value itself.
        let values = Mirror(reflecting: payload.value)
        let listed = values.displayStyle == .tuple ? values.children.map(\.value) : [payload.value]
        guard listed.count == shape.members.count else {
            throw ActionEncodingError(action: name, problem: .notAnAction(got: "\(listed.count) values where the schema lists \(shape.members.count)"))
        }
        var object = JSONObject(minimumCapacity: listed.count + 1)
        object.updateValue(.string(name), forKey: "type")
        for (member, value) in zip(shape.members, listed) {
            guard let present = Self.unwrapped(value) else { continue }
            guard let encodable = present as? any Encodable else {
                throw ActionEncodingError(action: name, problem: .invalidMember(member: member.name, reason: "\(type(of: present)) is not Encodable"))
            }
            do {
                object.updateValue(try JSONValueEncoder(userInfo: userInfo).encode(encodable), forKey: member.name)
            } catch {
                throw ActionEncodingError(action: name, problem: .invalidMember(member: member.name, reason: ActionWireEncoder.reason(error)))
            }
        }
        return .object(object)
    }

    /// Encodes `action` by reflection with the schema of its type (derived on each call:
    /// pass the schema to the other overload when sending many).
    public func encode<Action: Decodable>(reflecting action: Action) throws(ActionEncodingError) -> JSONValue {
        try encode(reflecting: action, schema: ActionSchema(describing: Action.self))
    }

    /// The value inside an optional (nil for `nil`), or the value itself.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}
