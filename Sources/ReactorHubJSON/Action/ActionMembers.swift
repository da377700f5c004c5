/// A wire action's members (its `type` among them), as the decoder reads them: from a parsed
/// object, or from checked bytes where each member is parsed when the action asks for it.
enum ActionMembers {
    case object(JSONObject)
    /// The bytes of the message, and where each member's value was written in them.
    case bytes([UInt8], [(key: String, range: Range<Int>)])

    static var none: ActionMembers { .object(JSONObject()) }

    /// The member's value; for a repeated key the last, as a parsed object keeps (keys
    /// compared as a parsed object compares them, by their Unicode scalars).
    func value(_ name: String) -> JSONValue? {
        switch self {
        case .object(let object):
            return object[name]
        case .bytes(let bytes, let members):
            guard let member = members.last(where: { JSONObject.sameKey($0.key, name) }) else { return nil }
            return Self.parse(member.range, in: bytes)
        }
    }

    /// How many members were written (a repeated key counts each time).
    var count: Int {
        switch self {
        case .object(let object): object.count
        case .bytes(_, let members): members.count
        }
    }

    /// The name of the member at `index`, in the order written.
    func name(at index: Int) -> String {
        switch self {
        case .object(let object): object[index].key
        case .bytes(_, let members): members[index].key
        }
    }

    /// The value written at `range`, which a parser checked before.
    static func parse(_ range: Range<Int>, in bytes: [UInt8]) -> JSONValue {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = ParserCursor(bytes: UnsafeBufferPointer(rebasing: buffer[..<range.upperBound]), maximumDepth: JSONParser.defaultMaximumDepth)
            cursor.position = range.lowerBound
            return (try? cursor.parseValue()) ?? .null
        }
    }
}
