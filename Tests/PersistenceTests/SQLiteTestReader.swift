import Foundation

/// Reads a database with the `sqlite3` command-line tool, independently of the store.
struct SQLiteTestReader {
    let path: String

    func rows(_ sql: String) throws -> [[String]] {
        let output = try Self.run(["-separator", "\u{1f}", path, sql])
        return output.split(separator: "\n").map { $0.split(separator: "\u{1f}", omittingEmptySubsequences: false).map(String.init) }
    }

    static func create(path: String, sql: String) throws {
        _ = try run([path, sql])
    }

    private static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
