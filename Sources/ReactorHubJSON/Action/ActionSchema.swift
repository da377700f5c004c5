/// The actions of a reactor, described from its `Action` enum's synthesized `Decodable`
/// conformance: each case in declaration order with its members and their JSON types.
///
/// Rendered for `hello.reactors` as `{"increase":{},"decrease":{}}` or
/// `{"searchCityWeather":{"city":"string"}}`. Member types are `string`, `integer`,
/// `number`, `boolean`, `array`, `object`, or `any` (a `JSONValue`), with a trailing `?`
/// for optional members (`string?`; an optional `JSONValue` is just `any`). A case's one
/// unlabeled value is the member `value`; several unlabeled values are `_0`, `_1`, ….
///
/// No macro is involved: the schema drives the synthesized `init(from:)` with a probing
/// decoder (see `CodingKeyCases`). A type whose `Decodable` conformance is written by
/// hand, or whose keys cannot be enumerated, gets an empty or partial schema.
public struct ActionSchema: Sendable, Hashable {
    /// One member of an action: its wire name and JSON type name.
    public struct Member: Sendable, Hashable, CustomStringConvertible {
        /// The member's name on the wire.
        public let name: String
        /// The member's JSON type name, e.g. `string` or `integer?`.
        public let type: String

        /// Creates a member description.
        public init(name: String, type: String) {
            self.name = name
            self.type = type
        }

        /// `name (type)`, as error messages list members.
        public var description: String { "\(name) (\(type))" }
    }

    /// One action: the case's name and its members in declaration order.
    public struct Case: Sendable, Hashable {
        /// The action's name, the value of `type` on the wire.
        public let name: String
        /// The associated values, in declaration order.
        public let members: [Member]

        /// Creates a case description.
        public init(name: String, members: [Member]) {
            self.name = name
            self.members = members
        }
    }

    /// Every action, in declaration order.
    public let cases: [Case]

    /// Creates a schema from case descriptions.
    public init(cases: [Case]) {
        self.cases = cases
    }

    /// Describes the cases of an enum with a synthesized `Decodable` conformance.
    ///
    /// Only cases whose values the initializer reads from the case's own nested container
    /// are described, so a struct's coding keys are never mistaken for actions.
    public init<Action: Decodable>(describing type: Action.Type) {
        let listing = CaseProbeDecoder(mode: .listCases)
        _ = try? Action(from: listing)
        var cases: [Case] = []
        cases.reserveCapacity(listing.caseNames.count)
        for (index, name) in listing.caseNames.enumerated() {
            let probe = CaseProbeDecoder(mode: .describe(caseIndex: index))
            _ = try? Action(from: probe)
            if probe.enteredCase {
                cases.append(Case(name: name, members: probe.members))
            }
        }
        self.cases = cases
    }

    /// The names of the enum's cases in declaration order; empty when they cannot be read.
    public static func caseNames<Action: Decodable>(of type: Action.Type) -> [String] {
        ActionSchema(describing: type).caseNames
    }

    /// The action names, in order.
    public var caseNames: [String] {
        cases.map(\.name)
    }

    /// The description of the action named `name`.
    public func `case`(named name: String) -> Case? {
        cases.first { $0.name == name }
    }

    /// `{"caseName":{"member":"type",…},…}`, in declaration order.
    public var jsonValue: JSONValue {
        var object = JSONObject(minimumCapacity: cases.count)
        for action in cases {
            var members = JSONObject(minimumCapacity: action.members.count)
            for member in action.members {
                members.updateValue(.string(member.type), forKey: member.name)
            }
            object.updateValue(.object(members), forKey: action.name)
        }
        return .object(object)
    }
}

extension ActionSchema {
    /// The wire name of an associated value's coding key: `_0` is `value` when the case
    /// has exactly one unlabeled value (then its keys have no `_1`).
    static func wireName<Key: CodingKey>(of key: Key) -> String {
        if key.stringValue == "_0", Key(stringValue: "_1") == nil {
            return "value"
        }
        return key.stringValue
    }

    /// The coding key for a wire member name; the inverse of `wireName(of:)`.
    static func key<Key: CodingKey>(forWireName name: String, as type: Key.Type) -> Key? {
        if name == "value", let unlabeled = Key(stringValue: "_0"), wireName(of: unlabeled) == "value" {
            return unlabeled
        }
        guard let key = Key(stringValue: name), wireName(of: key) == name else { return nil }
        return key
    }
}
