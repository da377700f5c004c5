import Foundation
import ReactorHubJSON
import JSONTestSupport
import Testing

/// Checks this module's diffs with an independent RFC 6902 implementation: Python's
/// `jsonpatch` package, run by `check_with_jsonpatch.py`.
@Suite struct JsonpatchCrossCheckTests {
    static let pairCount = 1_000

    @Test func pythonJsonpatchAppliesEveryComputedPatchToTheExpectedDocument() throws {
        try crossCheck(RandomDocuments(seed: 0x0C40_55C4), pairs: Self.pairCount)
    }

    /// The wide profile: large objects, long arrays, canonically equivalent keys and strings.
    /// The seed is the one of the `scripts/fuzz.sh` run that found pairs wrong when the JSON
    /// module compared names and strings as `String`s (UnicodeEquivalenceTests); with that
    /// comparison, 16 of these 2,000 pairs come out wrong.
    @Test func pythonJsonpatchAgreesOnWideDocumentsWithEquivalentKeys() throws {
        try crossCheck(RandomDocuments(seed: 156_735, profile: .wide), pairs: 2_000)
    }

    private func crossCheck(_ generator: RandomDocuments, pairs pairCount: Int) throws {
        var documents = generator
        var lines = JSONWriter()
        for _ in 0..<pairCount {
            let (old, new) = documents.pair()
            lines.writeRaw(#"{"a":"#)
            lines.writeValue(old)
            lines.writeRaw(#","b":"#)
            lines.writeValue(new)
            lines.writeRaw(#","patch":"#)
            lines.writePatch(JSONPatch.diff(from: old, to: new))
            lines.writeRaw("}\n")
        }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("json-crosscheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pairsFile = directory.appendingPathComponent("pairs.jsonl")
        try Data(lines.bytes).write(to: pairsFile)

        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("check_with_jsonpatch.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, pairsFile.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus == 0, "\(printed)")
        #expect(printed.contains("checked \(pairCount) pairs, \(pairCount) correct"), "\(printed)")
    }
}
