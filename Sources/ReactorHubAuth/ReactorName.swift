/// The naming rules of PROTOCOL.md "Names", for checking addresses and patterns without
/// depending on the Hub module: a kind is `[a-z][a-z0-9-]{0,31}`, an id `[A-Za-z0-9._-]{1,64}`.
enum ReactorName {
    static let maximumKindLength = 32
    static let maximumIDLength = 64

    static func isValidKind<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        guard let first = bytes.first, isKindStart(first), bytes.count <= maximumKindLength else { return false }
        return bytes.allSatisfy(isKindCharacter)
    }

    static func isValidID<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        (1...maximumIDLength).contains(bytes.count) && bytes.allSatisfy(isIDCharacter)
    }

    static func isKindStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    static func isKindCharacter(_ byte: UInt8) -> Bool {
        isKindStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
    }

    static func isIDCharacter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
