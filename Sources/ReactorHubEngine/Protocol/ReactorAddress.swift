/// A reactor instance's address, `KIND/ID` (PROTOCOL.md "Names"), e.g. `counter/lobby`.
public struct ReactorAddress: Hashable, Sendable, CustomStringConvertible {
    /// The registered kind, `[a-z][a-z0-9-]{0,31}`.
    public let kind: String
    /// The instance id, `[A-Za-z0-9._-]{1,64}`.
    public let id: String

    /// Parses `KIND/ID`; nil when either part breaks the naming rules.
    public init?(_ text: String) {
        guard let slash = text.firstIndex(of: "/") else { return nil }
        let kind = String(text[..<slash])
        let id = String(text[text.index(after: slash)...])
        guard Self.isValidKind(kind), Self.isValidID(id) else { return nil }
        self.kind = kind
        self.id = id
    }

    /// Whether `kind` is a well-formed kind name.
    public static func isValidKind(_ kind: String) -> Bool {
        let bytes = Array(kind.utf8)
        guard (1...32).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else {
            return false
        }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
    }

    /// Whether `id` is a well-formed instance id.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        guard (1...64).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    public var description: String { "\(kind)/\(id)" }
}
