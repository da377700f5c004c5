import ReactorHubDaemon
import Foundation
import Testing

@Suite("README configuration table")
struct ConfigurationReferenceTests {
    @Test func readmeTableIsTheOneRenderedFromTheSchema() throws {
        let readme = try String(contentsOfFile: "README.md", encoding: .utf8)
        let table = try #require(
            ConfigurationReference.table(in: readme),
            "README.md lacks the lines \(ConfigurationReference.beginMarker) and \(ConfigurationReference.endMarker)"
        )
        let expected = ConfigurationReference.markdownTable
        if table != expected {
            Issue.record("README.md's table differs from the schema; run `make config-table`:\n\(Self.diff(from: table, to: expected))")
        }
    }

    @Test func everyKeyHasARowWithItsDefault() {
        let rows = ConfigurationReference.markdownTable.split(separator: "\n")
        #expect(rows.contains("| `limits.maxMessageBytes` | `65536` | an integer from 1024 to 67108864 |  | larger messages close the connection with 1009 |"))
        #expect(rows.contains(#"| `cluster.redis` | `"127.0.0.1:6379"` | a "HOST:PORT" string | `REACTORHUB_CLUSTER_REDIS`, `--cluster-redis HOST:PORT` | the Redis server |"#))
        #expect(rows.contains { $0.hasPrefix("| `auth` | absent | ") })
        #expect(rows.contains { $0.hasPrefix(#"| `auth.anonymousRights` | `{"read":[],"act":[]}` | "#) })
        #expect(rows.count == 2 + 74 + 10)
        #expect(rows.contains("| `server.threads` | `0` | an integer from 0 to 256 | `REACTORHUB_SERVER_THREADS` | threads serving sockets, each with its own libwebsockets context (a connection lives on one); 0: one per CPU core the process may use |"))
    }

    /// The lines only in `old` (`-`) and only in `new` (`+`), in order.
    static func diff(from old: String, to new: String) -> String {
        let oldLines = old.split(separator: "\n", omittingEmptySubsequences: false)
        let newLines = new.split(separator: "\n", omittingEmptySubsequences: false)
        let removed = oldLines.filter { !newLines.contains($0) }.map { "- \($0)" }
        let added = newLines.filter { !oldLines.contains($0) }.map { "+ \($0)" }
        return (removed + added).joined(separator: "\n")
    }
}
