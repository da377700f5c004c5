import Foundation
import Testing

/// Runs the Python scripts beside the tests (PyJWT, the independent implementation).
///
/// A machine without python3 or PyJWT fails these tests with a message that says how to
/// get them, rather than skipping: CI installs them (scripts/ensure-deps.sh test).
enum Python {
    static let vectorsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    /// Runs `python3 SCRIPT ARGUMENTS…` from the Vectors folder; its exit status and what it printed.
    static func run(_ script: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try run(["python3", vectorsFolder.appendingPathComponent(script).path] + arguments)
    }

    /// Whether python3 can import PyJWT and cryptography; records an issue saying how to
    /// install them when it cannot.
    static func hasPyJWT(sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let result = try? run(["python3", "-c", "import jwt, cryptography"])
        guard let result, result.status == 0 else {
            Issue.record(
                "python3 with PyJWT and cryptography is needed: run scripts/ensure-deps.sh test (or pip install pyjwt cryptography); \(result?.output ?? "python3 could not be started")",
                sourceLocation: sourceLocation
            )
            return false
        }
        return true
    }

    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = vectorsFolder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, printed)
    }
}
