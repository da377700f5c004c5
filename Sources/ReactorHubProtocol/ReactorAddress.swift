/// A reactor instance's address, `KIND/ID` (PROTOCOL.md "Names"), e.g. `counter/lobby`.
///
/// The one home of the naming rule: the engine, the rights patterns, the configuration,
/// the Swift client and the HTTP paths all check names here.
public struct ReactorAddress: Hashable, Sendable, CustomStringConvertible {
    /// The registered kind, `[a-z][a-z0-9-]{0,31}`.
    public let kind: String
    /// The instance id, `[A-Za-z0-9._-]{1,64}`.
    public let id: String

    /// The longest kind name.
    public static let maximumKindLength = 32
    /// The longest instance id.
    public static let maximumIDLength = 64

    /// Parses `KIND/ID`; nil when either part breaks the naming rules.
    public init?(_ text: String) {
        self.init(utf8: text.utf8)
    }

    /// Parses `KIND/ID` from its UTF-8 bytes (a message's, without making a string of the
    /// whole first); nil when either part breaks the naming rules.
    package init?<Bytes: BidirectionalCollection<UInt8>>(utf8 bytes: Bytes) {
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")) else { return nil }
        let kind = bytes[..<slash]
        let id = bytes[bytes.index(after: slash)...]
        guard Self.isValidKind(kind), Self.isValidID(id) else { return nil }
        self.kind = String(decoding: kind, as: UTF8.self)
        self.id = String(decoding: id, as: UTF8.self)
    }

    /// The address of `id` in `kind`; nil when either part breaks the naming rules.
    public init?(kind: String, id: String) {
        guard Self.isValidKind(kind), Self.isValidID(id) else { return nil }
        self.kind = kind
        self.id = id
    }

    /// Whether `kind` is a well-formed kind name.
    public static func isValidKind(_ kind: String) -> Bool {
        isValidKind(kind.utf8)
    }

    /// Whether `id` is a well-formed instance id.
    public static func isValidID(_ id: String) -> Bool {
        isValidID(id.utf8)
    }

    /// Whether the UTF-8 `bytes` are a well-formed kind name.
    public static func isValidKind<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        guard let first = bytes.first, isKindStart(first), bytes.count <= maximumKindLength else { return false }
        return bytes.allSatisfy(isKindCharacter)
    }

    /// Whether the UTF-8 `bytes` are a well-formed instance id.
    public static func isValidID<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        (1...maximumIDLength).contains(bytes.count) && bytes.allSatisfy(isIDCharacter)
    }

    /// Whether a kind name may start with `byte` (a-z).
    public static func isKindStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    /// Whether a kind name may hold `byte` (a-z, 0-9, `-`).
    public static func isKindCharacter(_ byte: UInt8) -> Bool {
        isKindStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
    }

    /// Whether an instance id may hold `byte` (A-Z, a-z, 0-9, `.`, `_`, `-`).
    public static func isIDCharacter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// The rule in words, for refusals: what a well-formed address looks like.
    public static let ruleDescription =
        "KIND/ID with KIND matching [a-z][a-z0-9-]{0,31} and ID matching [A-Za-z0-9._-]{1,64}"

    public var description: String { "\(kind)/\(id)" }
}
