/// An action that also reads itself straight from its wire members, beside its synthesized
/// `Decodable` conformance, for the actions a kind receives most: the synthesized
/// `init(from:)` goes through boxed containers, a list of keys and generic lookups for
/// every action (about a microsecond each, BENCHMARKS.md "Issue 38: doc actions read from
/// their members").
///
/// `init(wire:)` answers an action it takes exactly as `init(from:)` would, and nil for
/// anything else (another name, a member it does not know, a value of another type, a
/// repeated member): `ActionDecoder` then decodes it through `Decodable`, so an error and
/// every rarer form keep that one answer. `Decodable` alone is enough for any action.
public protocol WireReadableAction: Decodable {
    /// The action written as `action`, or nil to leave it to `init(from:)`.
    init?(wire action: ActionWireMembers)
}

/// One wire action's name and members, for `WireReadableAction.init(wire:)`.
public struct ActionWireMembers {
    /// The action's name (its `type`).
    public let name: String
    let members: ActionMembers

    /// How many members were written besides `type` (a repeated one counts each time).
    public var count: Int {
        var count = 0
        for index in 0..<members.count where members.name(at: index) != "type" {
            count += 1
        }
        return count
    }

    /// The value of the member `name` (for a repeated one the last), nil when it is absent.
    public subscript(name: String) -> JSONValue? {
        members.value(name)
    }
}
