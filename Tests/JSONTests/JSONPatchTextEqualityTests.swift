import ReactorHubJSON
import Testing

@Suite("Diffing by text (JSONPatch.Equality.text)")
struct JSONPatchTextEqualityTests {
    func written(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.writeValue(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Patching `old` with the text diff gives a copy written exactly as `new`.
    func expectCopyWrittenAsNew(_ old: JSONValue, _ new: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let patch = JSONPatch.diff(from: old, to: new, equality: .text)
        #expect(written(try JSONPatch.apply(patch, to: old)) == written(new), sourceLocation: sourceLocation)
    }

    @Test func anIntegerBecomingADoubleIsAReplace() throws {
        #expect(JSONPatch.diff(from: ["n": 1], to: ["n": 1.0], equality: .text) == [.replace(path: "/n", value: 1.0)])
        #expect(JSONPatch.diff(from: ["n": 1], to: ["n": 1.0]) == [])
        try expectCopyWrittenAsNew(["n": 1, "m": [1, 2]], ["n": 1.0, "m": [1.0, 2]])
    }

    @Test func theSignOfZeroCounts() throws {
        #expect(JSONPatch.diff(from: [0.0], to: [-0.0], equality: .text).count == 1)
        try expectCopyWrittenAsNew([0.0], [-0.0])
    }

    @Test func canonicallyEquivalentStringsAreDifferentText() throws {
        let composed = "\u{E9}"
        let decomposed = "e\u{301}"
        // Different values too (UnicodeEquivalenceTests): JSON compares scalars.
        #expect(JSONValue.string(composed) != .string(decomposed))
        #expect(JSONPatch.diff(from: ["s": .string(composed)], to: ["s": .string(decomposed)], equality: .text).count == 1)
        #expect(JSONPatch.diff(from: ["s": .string(composed)], to: ["s": .string(decomposed)], equality: .json).count == 1)
        try expectCopyWrittenAsNew([.string(composed)], [.string(decomposed)])
    }

    @Test func membersInAnotherOrderReplaceTheObject() throws {
        let old: JSONValue = ["o": ["a": 1, "b": 2]]
        let new: JSONValue = ["o": ["b": 2, "a": 1]]
        #expect(JSONPatch.diff(from: old, to: new) == [])
        #expect(JSONPatch.diff(from: old, to: new, equality: .text) == [.replace(path: "/o", value: ["b": 2, "a": 1])])
        try expectCopyWrittenAsNew(old, new)
    }

    @Test func addedAndRemovedMembersKeepTheMemberwisePatch() throws {
        let long = JSONValue.string(String(repeating: "long value ", count: 10))
        let old: JSONValue = ["a": long, "b": 2, "c": 3]
        let new: JSONValue = ["a": long, "c": 4, "d": 5]
        #expect(JSONPatch.diff(from: old, to: new, equality: .text) == [
            .remove(path: "/b"), .replace(path: "/c", value: 4), .add(path: "/d", value: 5),
        ])
        try expectCopyWrittenAsNew(old, new)
    }

    @Test func equalTextGivesNothing() throws {
        let document: JSONValue = ["a": [1, 2.5, "x", ["k": .null]], "b": true]
        let parsed = try JSONValue(parsing: #"{"a":[1,2.5,"x",{"k":null}],"b":true}"#)
        #expect(JSONPatch.diff(from: document, to: parsed, equality: .text) == [])
    }

    @Test func arrayAlignmentTellsIntegersFromDoubles() throws {
        try expectCopyWrittenAsNew([1, 2, 3, 4, 5, 6], [1, 2, 3.0, 4, 5, 6, 7])
        try expectCopyWrittenAsNew([1, "x", 2], ["x", 2.0, 1])
    }
}
