/// A member of a top-level object read by `JSONParser.plainObjectMembers`: where its key
/// and its value were written, and what the value is.
package struct PlainMember {
    package enum Kind: Equatable {
        /// A string of printable ASCII without escapes.
        case string
        /// An integer written `-?(0|[1-9][0-9]*)`, at most 18 digits (it fits an `Int`).
        case integer
        /// An object or an array, checked as strictly as `JSONParser.parse` checks.
        case container
    }

    /// The key's bytes, between its quotes.
    package var key: Range<Int>
    /// The value as written: quotes included for a string.
    package var value: Range<Int>
    package var kind: Kind
    /// For the member whose members were asked for, an object: where each of its own
    /// members' values was written, in the order written (a repeated key listed again).
    package var members: [(key: String, range: Range<Int>)]?
}

extension JSONParser {
    /// Reads the object that makes up `bytes` without building it, for a hot path whose
    /// messages have one usual shape (the protocol's action message): true once `member`
    /// has accepted each of its members in order, when every key is a printable ASCII
    /// string without escapes and every value one of `PlainMember.Kind`'s, and nothing
    /// but whitespace follows the object. False as soon as `member` declines one or the
    /// text is anything else, valid JSON or not: the caller then parses it in full, which
    /// accepts it or says what is wrong. A text read here is one `parse` accepts.
    ///
    /// When the member named `notingMembersOf` is an object, its own members are noted as
    /// it is checked (`PlainMember.members`): a reader of it need not look for them again.
    package func plainObjectMembers(
        _ bytes: UnsafeBufferPointer<UInt8>, notingMembersOf noted: StaticString? = nil, _ member: (PlainMember) -> Bool
    ) -> Bool {
        guard maximumDepth >= 1 else { return false }
        var cursor = ParserCursor(bytes: bytes, maximumDepth: maximumDepth, options: options)
        cursor.skipWhitespace()
        guard cursor.position < bytes.count, bytes[cursor.position] == UInt8(ascii: "{") else { return false }
        cursor.position += 1
        cursor.depth = 1
        cursor.skipWhitespace()
        guard cursor.position < bytes.count, bytes[cursor.position] != UInt8(ascii: "}") else { return false }
        while true {
            guard let key = cursor.plainString() else { return false }
            cursor.skipWhitespace()
            guard cursor.position < bytes.count, bytes[cursor.position] == UInt8(ascii: ":") else { return false }
            cursor.position += 1
            cursor.skipWhitespace()
            guard cursor.position < bytes.count else { return false }
            let start = cursor.position
            let kind: PlainMember.Kind
            var members: [(key: String, range: Range<Int>)]?
            switch bytes[start] {
            case UInt8(ascii: "\""):
                guard cursor.plainString() != nil else { return false }
                kind = .string
            case UInt8(ascii: "{") where noted.map({ bytes.holds($0, at: key.dropFirst().dropLast()) }) ?? false:
                guard let noted = try? cursor.skipObjectNotingMembers() else { return false }
                members = noted
                kind = .container
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard (try? cursor.skipValue()) != nil else { return false }
                kind = .container
            default:
                guard cursor.plainInteger() else { return false }
                kind = .integer
            }
            guard member(PlainMember(key: key.dropFirst().dropLast(), value: start..<cursor.position, kind: kind, members: members)) else { return false }
            cursor.skipWhitespace()
            guard cursor.position < bytes.count else { return false }
            if bytes[cursor.position] == UInt8(ascii: "}") { break }
            guard bytes[cursor.position] == UInt8(ascii: ",") else { return false }
            cursor.position += 1
            cursor.skipWhitespace()
        }
        cursor.position += 1
        cursor.skipWhitespace()
        return cursor.position == bytes.count
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes at `range` are `text`'s.
    package func holds(_ text: StaticString, at range: Range<Int>) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let expected = text.utf8Start
        for offset in 0..<range.count where self[range.lowerBound + offset] != expected[offset] {
            return false
        }
        return true
    }
}

extension ParserCursor {
    /// Checks the object at the current position as `skipValue()` does and returns where
    /// each of its members' values was written, in the order written.
    fileprivate mutating func skipObjectNotingMembers() throws(JSONParseError) -> [(key: String, range: Range<Int>)] {
        var members: [(key: String, range: Range<Int>)] = []
        members.reserveCapacity(4)
        try walkObject { cursor, key, _ throws(JSONParseError) in
            cursor.skipWhitespace()
            let start = cursor.position
            try cursor.skipValue()
            members.append((key, start..<cursor.position))
        }
        return members
    }

    /// Steps over a string of printable ASCII without escapes at the current position and
    /// returns where it was written, quotes included; nil for anything else.
    fileprivate mutating func plainString() -> Range<Int>? {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { return nil }
        let start = position
        position += 1
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { return start..<position }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
        }
        return nil
    }

    /// Steps over `-?(0|[1-9][0-9]*)` of at most 18 digits, when a delimiter follows it.
    fileprivate mutating func plainInteger() -> Bool {
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digits = position
        while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
            position += 1
        }
        let count = position - digits
        guard (1...18).contains(count), count == 1 || bytes[digits] != UInt8(ascii: "0"), position < bytes.count else { return false }
        switch bytes[position] {
        case UInt8(ascii: ","), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09: return true
        default: return false
        }
    }
}
