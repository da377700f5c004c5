import ReactorHubProtocol
import Foundation
import ReactorHubStore
import ReactorHubJSON
import ReactorHubLogging
import ReactorHubSQLite
import Synchronization
import Testing

@Suite("SQLite state store")
struct SQLiteStateStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rh-store-\(UUID().uuidString)").path
    var path: String { folder + "/nested/state.sqlite" }
    let lobby = ReactorAddress("counter/lobby")!

    func open(flushMs: Int = 50) throws -> SQLiteStateStore {
        var options = SQLiteStateStore.Options(path: path)
        options.flushInterval = .milliseconds(flushMs)
        let store = try SQLiteStateStore.open(options, logger: Logger(label: "test"))
        store.start()
        return store
    }

    func change(_ version: Int, epoch: String = "e1", keep: Int = 3) -> StoredChange {
        StoredChange(
            address: lobby, epoch: epoch, version: version, state: .object(["value": .int(version)]),
            patch: StoredPatch(version: version, frame: Array(#"{"type":"patch","version":\#(version)}"#.utf8)), keepPatches: keep
        )
    }

    @Test func changesSurviveReopeningWithTheirRecentPatches() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try open()
        for version in 1...5 {
            store.record(change(version))
        }
        await store.close()

        let reopened = try open()
        let stored = try #require(try reopened.load(lobby))
        #expect(stored.epoch == "e1")
        #expect(stored.version == 5)
        #expect(stored.state == .object(["value": 5]))
        #expect(stored.patches.map(\.version) == [3, 4, 5])
        #expect(stored.patches.last?.frame == Array(#"{"type":"patch","version":5}"#.utf8))
        #expect(try reopened.load(ReactorAddress("counter/other")!) == nil)
        await reopened.close()
    }

    @Test func loadSeesChangesNotCommittedYet() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try open(flushMs: 60_000)
        store.record(change(1))
        store.record(change(2))
        let stored = try #require(try store.load(lobby))
        #expect(stored.version == 2)
        #expect(stored.patches.map(\.version) == [1, 2])
        await store.close()
    }

    @Test func aNewEpochForgetsThePatchesOfTheOldOne() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try open()
        store.record(change(1, epoch: "old"))
        store.record(change(2, epoch: "old"))
        await store.flush()
        store.record(change(1, epoch: "new"))
        await store.close()
        let reopened = try open()
        let stored = try #require(try reopened.load(lobby))
        #expect(stored.epoch == "new")
        #expect(stored.patches.map(\.version) == [1])
        await reopened.close()
    }

    @Test func whenDurableWaitsForTheCommit() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try open(flushMs: 60_000)
        let fired = Mutex(false)
        store.record(change(1))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            store.whenDurable(lobby, version: 1) {
                fired.withLock { $0 = true }
                continuation.resume()
            }
        }
        #expect(fired.withLock { $0 })
        // Already durable: at once.
        let immediate = Mutex(false)
        store.whenDurable(lobby, version: 1) { immediate.withLock { $0 = true } }
        #expect(immediate.withLock { $0 })
        await store.close()
    }

    @Test func setAsideKeepsTheRowInASeparateTable() async throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try open()
        store.record(change(4))
        await store.flush()
        store.setAside(lobby, reason: "does not decode")
        await store.close()
        let reopened = try open()
        #expect(try reopened.load(lobby) == nil)
        await reopened.close()
        let rows = try SQLiteTestReader(path: path).rows("SELECT kind, id, version, state, reason FROM set_aside")
        #expect(rows == [["counter", "lobby", "4", #"{"value":4}"#, "does not decode"]])
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/nested", withIntermediateDirectories: true)
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try garbage.write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try open()
        } throws: { error in
            "\(error)".contains("not a database") || "\(error)".contains("corrupt")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func anotherApplicationsDatabaseIsRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/nested", withIntermediateDirectories: true)
        try SQLiteTestReader.create(path: path, sql: "CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES ('mine');")
        #expect {
            _ = try open()
        } throws: { error in
            "\(error)".contains("not a ReactorHub database")
        }
        #expect(try SQLiteTestReader(path: path).rows("SELECT text FROM notes") == [["mine"]])
    }

    @Test func anUnwritableLocationIsRefused() throws {
        #expect(throws: PersistenceError.self) {
            _ = try SQLiteStateStore.open(SQLiteStateStore.Options(path: "/proc/reactorhub/state.sqlite"), logger: Logger(label: "test"))
        }
    }
}
