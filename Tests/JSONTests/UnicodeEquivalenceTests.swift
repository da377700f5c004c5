import ReactorHubJSON
import Testing

/// Strings that Swift's `String ==` equates (canonically equivalent spellings) but JSON,
/// and Python's jsonpatch, tell apart. Found by the differential fuzz of `JSONPatch.diff`
/// against jsonpatch (Fuzz/README.md): an object of more than eight members merged two
/// such names (its hashed index used `String` equality, the small form did not), the parser
/// dropped one of them, and the differ sent nothing for a change between spellings.
@Suite struct UnicodeEquivalenceTests {
    static let precomposed = "\u{E9}"  // é
    static let decomposed = "e\u{301}"  // e + combining acute
    static let kelvin = "\u{212A}"  // the Kelvin sign, canonically equivalent to K

    /// Eight plain members, so that two more go past `JSONObject`'s hashed-index threshold.
    static let filler = (0..<8).map { #""k\#($0)":0"# }.joined(separator: ",")

    @Test func equivalentNamesAreTwoMembersInSmallAndLargeObjects() throws {
        for prefix in ["", Self.filler + ","] {
            let object = try #require(JSONValue(parsing: "{\(prefix)\"\(Self.precomposed)\":1,\"\(Self.decomposed)\":2,\"K\":3,\"\(Self.kelvin)\":4}").objectValue)
            #expect(object.count == (prefix.isEmpty ? 4 : 12))
            #expect(object[Self.precomposed] == 1)
            #expect(object[Self.decomposed] == 2)
            #expect(object["K"] == 3)
            #expect(object[Self.kelvin] == 4)
        }
    }

    @Test func aLargeObjectKeepsBothSpellingsWhenOneIsAdded() {
        var object = JSONObject((0..<9).map { ("k\($0)", JSONValue.int($0)) })
        object[Self.kelvin] = 1
        object["K"] = 2
        #expect(object.count == 11)
        #expect(object[Self.kelvin] == 1)
        object["K"] = nil
        #expect(object[Self.kelvin] == 1)
        #expect(object.count == 10)
    }

    @Test func equivalentStringsAreDifferentValues() {
        #expect(JSONValue.string(Self.precomposed) != .string(Self.decomposed))
        #expect(JSONValue.string("K") != .string(Self.kelvin))
        #expect(JSONValue.object([Self.precomposed: 1]) != .object([Self.decomposed: 1]))
        #expect(JSONPointer(tokens: [Self.precomposed]) != JSONPointer(tokens: [Self.decomposed]))
    }

    @Test func theDiffOfAChangeOfSpellingIsNotEmpty() throws {
        let old: JSONValue = ["name": .string(Self.precomposed)]
        let new: JSONValue = ["name": .string(Self.decomposed)]
        #expect(JSONPatch.diff(from: old, to: new) == [.replace(path: "/name", value: .string(Self.decomposed))])

        let large = try JSONValue(parsing: "{\(Self.filler),\"\(Self.kelvin)\":1}")
        let renamed = try JSONValue(parsing: "{\(Self.filler),\"K\":1}")
        let patch = JSONPatch.diff(from: large, to: renamed)
        #expect(!patch.isEmpty)
        #expect(try JSONPatch.apply(patch, to: large).serialized() == renamed.serialized())
    }

    @Test func testComparesCodePointsAndMoveBetweenSpellingsMoves() throws {
        let document: JSONValue = [Self.precomposed: "x"]
        #expect(throws: JSONPatchError.self) {
            try JSONPatch.apply([.test(path: JSONPointer(tokens: [Self.decomposed]), value: "x")], to: document)
        }
        let moved = try JSONPatch.apply(
            [.move(from: JSONPointer(tokens: [Self.precomposed]), path: JSONPointer(tokens: [Self.decomposed]))], to: document
        )
        #expect(moved.objectValue?.keys.map { Array($0.utf8) } == [Array(Self.decomposed.utf8)])
    }
}
