import ReactorHubJSON

/// What one `doc` edit costs the hub, per operation of the edit: the patch applied to the
/// state the instance holds (the old version stays alive, as the runtime and the publisher
/// keep it), the size check, the diff by text and the patch frame; for arrays of 1,000 to
/// 100,000 elements. Run alone with `json-bench doc`.
enum DocEdits {
    static func run() {
        print("\ndoc edits on {\"a\": [n integers], \"b\": 1}, the old version kept (as the hub keeps it)")
        print("  ns per operation of the edit; columns: n = 1,000 / 30,000 / 100,000")
        for (label, edit) in cases {
            for (step, body) in steps {
                var line = "  \((label + ", " + step).padding(to: 52))"
                for count in [1_000, 30_000, 100_000] {
                    let figure = nanosecondsPerOperation(count: count, edit: edit, body)
                    line += Measurement.format(figure, decimals: 0).leftPadding(to: 12)
                }
                print(line)
            }
        }
    }

    static let cases: [(String, [PatchOperation])] = [
        ("add /a/-", [.add(path: "/a/-", value: 7)]),
        ("100 × add /a/-", Array(repeating: .add(path: "/a/-", value: 7), count: 100)),
        ("replace /a/17", [.replace(path: "/a/17", value: 7)]),
        ("add /b", [.add(path: "/b", value: 7)]),
    ]

    typealias Step = @Sendable (_ old: JSONValue, _ edit: [PatchOperation]) -> Int

    /// What the hub did per edit before (apply, measure the whole document, diff the two
    /// versions by text), and what it does now (apply within the doc kind's limits, keeping
    /// the size and the operations, and write the patch frame).
    static let steps: [(String, Step)] = [
        ("apply (RFC 6902)", { old, edit in
            if case .object(let root) = try! JSONPatch.apply(edit, to: old) { return root.count }
            return 0
        }),
        ("measure the whole document", { old, edit in old.serializedByteCount(limit: 1 << 24) }),
        ("diff by text", { old, edit in JSONPatch.diff(from: old, to: newVersions[edit.count]!, equality: .text).count }),
        ("bounded apply + patch frame (doc kind now)", { old, edit in
            let limits = DocumentLimits(maxBytes: 1 << 24, maxDepth: 64, maxElements: 1_000_000)
            let result = try! JSONPatch.apply(edit, to: old, byteCount: byteCounts[edit.count]!, within: limits)
            var writer = JSONWriter()
            writer.writePatch(result.patch!)
            return writer.bytes.count + result.byteCount
        }),
    ]

    nonisolated(unsafe) static var newVersions: [Int: JSONValue] = [:]
    nonisolated(unsafe) static var byteCounts: [Int: Int] = [:]

    static func nanosecondsPerOperation(count: Int, edit: [PatchOperation], _ body: Step) -> Double {
        let old: JSONValue = ["a": .array((0..<count).map { .int($0) }), "b": 1]
        newVersions = [edit.count: try! JSONPatch.apply(edit, to: old)]
        byteCounts = [edit.count: old.serializedByteCount()]
        let iterations = max(3, 1_000_000 / count / edit.count)
        let measured = Measurement.run("", iterations: iterations, rounds: 5) { body(old, edit) }
        return Measurement.microseconds(measured.median) * 1000 / Double(edit.count)
    }
}

extension String {
    func leftPadding(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
