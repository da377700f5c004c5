import Foundation
import ReactorHubJSON

/// The public json-patch-tests suite (tests.json and spec_tests.json), read with this
/// module's own parser from the test bundle.
struct ConformanceSuite {
    struct Case {
        let file: String
        let index: Int
        let comment: String
        let document: JSONValue
        let patch: JSONValue
        let expected: JSONValue?
        let error: String?
        let disabled: Bool

        var label: String { "\(file)#\(index) \(comment)" }
    }

    static let files = ["tests.json", "spec_tests.json"]

    let cases: [Case]
    /// Every top-level JSON text of the suite, for parser round trips.
    let rawFiles: [String: [UInt8]]

    static func load() throws -> ConformanceSuite {
        guard let directory = Bundle.module.url(forResource: "json-patch-tests", withExtension: nil) else {
            throw LoadError(message: "json-patch-tests resource folder is missing from the test bundle")
        }
        var cases: [Case] = []
        var rawFiles: [String: [UInt8]] = [:]
        for file in files {
            let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(file)))
            rawFiles[file] = bytes
            guard case .array(let entries) = try JSONValue(parsing: bytes) else {
                throw LoadError(message: "\(file) is not an array")
            }
            for (index, entry) in entries.enumerated() {
                guard let document = entry["doc"], let patch = entry["patch"] else {
                    throw LoadError(message: "\(file)#\(index) lacks doc or patch")
                }
                cases.append(Case(
                    file: file,
                    index: index,
                    comment: entry["comment"]?.stringValue ?? "",
                    document: document,
                    patch: patch,
                    expected: entry["expected"],
                    error: entry["error"]?.stringValue,
                    disabled: entry["disabled"]?.boolValue ?? false
                ))
            }
        }
        return ConformanceSuite(cases: cases, rawFiles: rawFiles)
    }

    struct LoadError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
