import Testing
import ReactorHubJSON
import JSONTestSupport

@Suite struct DiffRoundTripPropertyTests {
    @Test func applyingTheDiffOfTenThousandRandomPairsGivesTheSecondDocument() throws {
        var documents = RandomDocuments(seed: 0x5EED_0001)
        var checked = 0
        var operations = 0
        var emptyPatches = 0
        for _ in 0..<10_000 {
            let (old, new) = documents.pair()
            let patch = JSONPatch.diff(from: old, to: new)
            let patched = try JSONPatch.apply(patch, to: old)
            #expect(patched == new, "diff(\(old), \(new)) = \(JSONPatch.jsonValue(of: patch))")
            // Never larger than replacing the whole document.
            var written = JSONWriter()
            written.writePatch(patch)
            var replacement = JSONWriter()
            replacement.writePatch([.replace(path: .root, value: new)])
            #expect(written.bytes.count <= replacement.bytes.count)
            if patch.isEmpty {
                #expect(old == new)
                emptyPatches += 1
            }
            operations += patch.count
            checked += 1
        }
        #expect(checked == 10_000)
        // The generator must exercise both outcomes, or the property proves little.
        #expect(emptyPatches > 100)
        #expect(operations > 5_000)
    }

    /// With `.text` equality the patched copy is written byte for byte as the new
    /// document, whatever integers, doubles and member orders the pair mixes.
    @Test func applyingTheTextDiffOfRandomPairsGivesTheSecondDocumentsText() throws {
        var documents = RandomDocuments(seed: 0x5EED_0004)
        var emptyPatches = 0
        for _ in 0..<3_000 {
            let (old, new) = documents.pair()
            let patch = JSONPatch.diff(from: old, to: new, equality: .text)
            let patched = try JSONPatch.apply(patch, to: old)
            #expect(patched.serialized() == new.serialized(), "diff(\(old), \(new)) = \(JSONPatch.jsonValue(of: patch))")
            if patch.isEmpty {
                #expect(old.serialized() == new.serialized())
                emptyPatches += 1
            }
        }
        #expect(emptyPatches > 30)
    }

    @Test func patchesSurviveTheirJSONTextForm() throws {
        var documents = RandomDocuments(seed: 0x5EED_0002)
        for _ in 0..<1_000 {
            let (old, new) = documents.pair()
            var writer = JSONWriter()
            writer.writePatch(JSONPatch.diff(from: old, to: new))
            let reread = try JSONPatch.operations(from: JSONValue(parsing: writer.bytes))
            #expect(try JSONPatch.apply(reread, to: JSONValue(parsing: old.serialized())) == new)
        }
    }

    @Test func randomDocumentsRoundTripThroughTheParser() throws {
        var documents = RandomDocuments(seed: 0x5EED_0003)
        for _ in 0..<2_000 {
            let value = documents.value()
            let text = value.serialized()
            let reparsed = try JSONValue(parsing: text)
            #expect(reparsed == value)
            #expect(reparsed.serialized() == text)
        }
    }
}
