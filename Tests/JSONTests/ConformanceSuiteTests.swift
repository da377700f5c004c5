import Testing
import ReactorHubJSON

@Suite struct ConformanceSuiteTests {
    @Test func everyEnabledCaseOfThePublicSuitePasses() throws {
        let suite = try ConformanceSuite.load()
        var applied = 0
        var refused = 0
        var disabled = 0
        for entry in suite.cases {
            if entry.disabled {
                disabled += 1
                continue
            }
            if let error = entry.error {
                #expect(throws: JSONPatchError.self, "\(entry.label): expected error '\(error)'") {
                    try JSONPatch.apply(entry.patch, to: entry.document)
                }
                refused += 1
            } else {
                let result = try JSONPatch.apply(entry.patch, to: entry.document)
                if let expected = entry.expected {
                    #expect(result == expected, "\(entry.label)")
                }
                applied += 1
            }
        }
        // 95 cases in tests.json and 17 in spec_tests.json; 4 are disabled upstream.
        #expect(suite.cases.count == 112)
        #expect(disabled == 4)
        #expect(applied == 74)
        #expect(refused == 34)
    }

    @Test func everyFailingCaseNamesTheOperationThatFailed() throws {
        let suite = try ConformanceSuite.load()
        var checked = 0
        for entry in suite.cases where !entry.disabled && entry.error != nil {
            do {
                _ = try JSONPatch.apply(entry.patch, to: entry.document)
                Issue.record("\(entry.label) should fail")
            } catch {
                guard case .array(let operations) = entry.patch else { continue }
                #expect(error.operationIndex.map { operations.indices.contains($0) } == true, "\(entry.label): \(error)")
                #expect(error.message.hasPrefix("patch operation \(error.operationIndex ?? -1)"), "\(entry.label): \(error)")
                checked += 1
            }
        }
        #expect(checked == 34)
    }

    @Test func disabledTopLevelScalarCaseAlsoPasses() throws {
        let result = try JSONPatch.apply([.replace(path: .root, value: "bar")], to: "foo")
        #expect(result == "bar")
        let whole = try JSONPatch.apply([.test(path: .root, value: ["foo": 1])], to: ["foo": 1])
        #expect(whole == ["foo": 1])
    }

    @Test func everyDocumentOfTheSuiteRoundTripsThroughTheSerializer() throws {
        let suite = try ConformanceSuite.load()
        var values: [JSONValue] = []
        for entry in suite.cases {
            values.append(entry.document)
            values.append(entry.patch)
            if let expected = entry.expected { values.append(expected) }
        }
        for value in values {
            let text = value.serialized()
            let reparsed = try JSONValue(parsing: text)
            #expect(reparsed == value)
            #expect(reparsed.serialized() == text)
        }
        #expect(values.count == 112 * 2 + 75)
        for (file, bytes) in suite.rawFiles {
            let parsed = try JSONValue(parsing: bytes)
            #expect(try JSONValue(parsing: parsed.serialized()) == parsed, "\(file)")
        }
    }
}
