/// String equality as JSON has it: the same Unicode scalars (code points), compared as
/// UTF-8 bytes.
///
/// `String ==` also equates canonically equivalent spellings (`é` and `e` + U+0301, the
/// Kelvin sign and `K`, combining marks in either order). JSON does not: RFC 8259 compares
/// member names code unit by code unit, RFC 6902 `test` compares strings by code points,
/// and every other implementation (the browser's, Python's) keeps such spellings apart. A
/// document model that merged them would drop members, and a differ that equated them would
/// send no patch for a change that clients can see. Names and string values of the JSON
/// module compare with this, never with `==`.
enum CodePoints {
    /// Whether `left` and `right` hold the same scalars.
    static func equal(_ left: String, _ right: String) -> Bool {
        let leftBytes = left.utf8
        let rightBytes = right.utf8
        guard leftBytes.count == rightBytes.count else { return false }
        let contiguous = leftBytes.withContiguousStorageIfAvailable { mine in
            rightBytes.withContiguousStorageIfAvailable { theirs in mine.elementsEqual(theirs) }
        }
        if case let result?? = contiguous { return result }
        return leftBytes.elementsEqual(rightBytes)
    }

    /// Feeds the scalars of `text` to `hasher`, consistently with `equal`.
    static func hash(_ text: String, into hasher: inout Hasher) {
        let bytes = text.utf8
        hasher.combine(bytes.count)
        if bytes.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) }) == nil {
            Array(bytes).withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}

/// A member name as a dictionary key, equal to another only with the same scalars.
struct MemberName: Hashable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (left: MemberName, right: MemberName) -> Bool {
        CodePoints.equal(left.text, right.text)
    }

    func hash(into hasher: inout Hasher) {
        CodePoints.hash(text, into: &hasher)
    }
}
