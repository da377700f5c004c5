import ReactorHubProtocol
import Foundation
import ReactorHubStore
import ReactorHubJSON
import ReactorHubLogging
import ReactorHubSQLite
import Testing

/// Which stored rows may continue their epoch after a restart (docs/protocol.md: a version
/// number is never issued twice within one epoch).
@Suite("Store runs and epoch continuity")
struct StoreRunsTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rh-runs-\(UUID().uuidString)").path
    var path: String { folder + "/state.sqlite" }
    let lobby = ReactorAddress("doc/lobby")!
    let other = ReactorAddress("doc/other")!

    func open(durable: Bool = false) throws -> SQLiteStateStore {
        var options = SQLiteStateStore.Options(path: path)
        options.flushInterval = .milliseconds(20)
        options.fullSync = durable
        let store = try SQLiteStateStore.open(options, logger: Logger(label: "test"))
        store.start()
        return store
    }

    func change(_ address: ReactorAddress, _ version: Int, epoch: String = "e1") -> StoredChange {
        StoredChange(
            address: address, epoch: epoch, version: version, state: .object(["n": .int(version)]),
            patch: StoredPatch(version: version, frame: Array("{\"version\":\(version)}".utf8)), keepPatches: 8
        )
    }

    @Test func afterACleanCloseStoredRowsContinueTheirEpoch() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try open()
        store.record(change(lobby, 1))
        await store.close()
        let reopened = try open()
        #expect(try reopened.load(lobby)?.continuity == .proven)
        await reopened.close()
    }

    @Test func withoutACleanCloseEveryRowWrittenBeforeIsUnproven() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let crashed = try open()
        crashed.record(change(lobby, 1))
        await crashed.flush()
        // No close: the next open finds the run's marker unset, as after kill -9.
        let restarted = try open()
        let stored = try #require(try restarted.load(lobby))
        #expect(stored.continuity == .unproven)
        #expect(stored.version == 1)
        // What this run records is proven, and stays so after its own clean stop.
        restarted.record(change(lobby, 1, epoch: "e2"))
        #expect(try restarted.load(lobby)?.continuity == .proven)
        await restarted.close()
        let third = try open()
        #expect(try third.load(lobby).map { [$0.epoch, "\($0.continuity)"] } == ["e2", "proven"])
        await third.close()
        await crashed.close()
    }

    @Test func rowsNobodyLoadedStayUnprovenThroughLaterCleanRuns() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let crashed = try open()
        crashed.record(change(other, 3))
        await crashed.flush()
        let clean = try open()
        await clean.close()
        let later = try open()
        #expect(try later.load(other)?.continuity == .unproven)
        await later.close()
        await crashed.close()
    }

    @Test func aRunWithDurableAcksIsTrustedEvenWithoutACleanClose() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let crashed = try open(durable: true)
        crashed.record(change(lobby, 4))
        await crashed.flush()
        let restarted = try open()
        #expect(try restarted.load(lobby)?.continuity == .proven)
        await restarted.close()
        await crashed.close()
    }

    @Test func aStartThatNeverServesWritesNothingAndLeavesThePreviousRunClean() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try open()
        first.record(change(lobby, 1))
        await first.close()
        let bookkeeping = "SELECT key, value FROM store_runs ORDER BY key"
        let before = try SQLiteTestReader(path: path).rows(bookkeeping)
        #expect(before.contains(["clean_stop", "1"]) && before.contains(["run", "1"]))
        // Opened, then the daemon fails to listen: the store is dropped without its run.
        var options = SQLiteStateStore.Options(path: path)
        options.flushInterval = .milliseconds(20)
        _ = try SQLiteStateStore.open(options, logger: Logger(label: "test"))
        #expect(try SQLiteTestReader(path: path).rows(bookkeeping) == before)
        // The next start that serves continues the rows of the clean run.
        let next = try open()
        try next.beginRun()
        #expect(try SQLiteTestReader(path: path).rows("SELECT value FROM store_runs WHERE key = 'run'") == [["2"]])
        #expect(try next.load(lobby)?.continuity == .proven)
        await next.close()
    }

    @Test func aNewFileIsNotWrittenBeforeTheRunBegins() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try open()
        // Opened: the file exists (SQLite creates it empty) and holds nothing yet.
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.size] as? Int) == 0)
        try store.beginRun()
        #expect(try SQLiteTestReader(path: path).rows("SELECT value FROM store_runs WHERE key = 'run'") == [["1"]])
        await store.close()
    }

    @Test func theLockFileNamesTheProcessThatHoldsTheDatabase() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try open()
        let holder = try String(contentsOfFile: path + ".lock", encoding: .utf8)
        #expect(holder == "\(ProcessInfo.processInfo.processIdentifier)\n")
        await store.close()
    }

    @Test func aDatabaseOfTheFirstSchemaIsMigratedAndItsRowsAreUnproven() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let sql = """
            PRAGMA application_id = 1380467249;
            CREATE TABLE instances (kind TEXT NOT NULL, id TEXT NOT NULL, epoch TEXT NOT NULL, version INTEGER NOT NULL,
                state TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (kind, id));
            CREATE TABLE patches (kind TEXT NOT NULL, id TEXT NOT NULL, epoch TEXT NOT NULL, version INTEGER NOT NULL,
                frame TEXT NOT NULL, PRIMARY KEY (kind, id, version));
            CREATE TABLE set_aside (kind TEXT NOT NULL, id TEXT NOT NULL, epoch TEXT NOT NULL, version INTEGER NOT NULL,
                state TEXT NOT NULL, reason TEXT NOT NULL, set_aside_at INTEGER NOT NULL);
            INSERT INTO instances VALUES ('doc', 'lobby', 'old', 7, '{"n":7}', 0);
            PRAGMA user_version = 1;
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, sql]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let store = try open()
        let stored = try #require(try store.load(lobby))
        #expect([stored.epoch, "\(stored.version)", "\(stored.continuity)"] == ["old", "7", "unproven"])
        await store.close()
    }
}
