/// The database layout, the checks made before the store writes anything, and the first
/// writes of a run.
///
/// ```
/// instances(kind, id, epoch, version, state, updated_at, run)  one row per instance
/// patches(kind, id, epoch, version, frame)                     the recent patch frames
/// set_aside(kind, id, epoch, version, state, reason, set_aside_at)  rows that no longer decode
/// store_runs(key, value)                                        the run bookkeeping (`StoreRuns`)
/// ```
enum SQLiteSchema {
    /// `PRAGMA application_id` of ReactorHub databases ("RHB1").
    static let applicationID = 0x5248_4231

    /// Checks, reading only, that the file is a ReactorHub database this version can write
    /// (or a new, empty one). Nothing is written: a start that fails later (the port in
    /// use) leaves the file as it was.
    static func inspect(_ connection: SQLiteConnection) throws(PersistenceError) {
        // A file that is not a database (or is corrupt) fails here.
        let existingID = Int(try connection.scalar("PRAGMA application_id") ?? "0") ?? 0
        let tables = try connection.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? "0"
        if existingID != applicationID && tables != "0" {
            throw PersistenceError(
                "\(connection.path): not a ReactorHub database (it already holds other tables); move it away or set persistence.path"
            )
        }
        if try connection.scalar("PRAGMA quick_check") != "ok" {
            throw PersistenceError("\(connection.path): the database is corrupt (PRAGMA quick_check failed); restore a backup or move it away")
        }
        let schemaVersion = Int(try connection.scalar("PRAGMA user_version") ?? "0") ?? 0
        guard schemaVersion <= 2 else {
            throw PersistenceError("\(connection.path): written by a newer ReactorHub (schema \(schemaVersion)); run that version or restore a backup")
        }
    }

    /// Prepares the file for writing (WAL, the tables, a migration) and begins a run (see
    /// `StoreRuns`); returns the run's numbers. Called once the daemon serves.
    static func begin(_ connection: SQLiteConnection, fullSync: Bool) throws(PersistenceError) -> StoreRuns {
        let mode = try connection.scalar("PRAGMA journal_mode = WAL")
        guard mode == "wal" else {
            throw PersistenceError("\(connection.path): cannot switch to WAL mode (got \(mode ?? "nothing"))")
        }
        try connection.execute("PRAGMA synchronous = \(fullSync ? "FULL" : "NORMAL")")
        let schemaVersion = Int(try connection.scalar("PRAGMA user_version") ?? "0") ?? 0
        try connection.execute(
            """
            BEGIN IMMEDIATE;
            CREATE TABLE IF NOT EXISTS instances (
                kind TEXT NOT NULL, id TEXT NOT NULL, epoch TEXT NOT NULL, version INTEGER NOT NULL,
                state TEXT NOT NULL, updated_at INTEGER NOT NULL, run INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (kind, id));
            CREATE TABLE IF NOT EXISTS patches (
                kind TEXT NOT NULL, id TEXT NOT NULL, epoch TEXT NOT NULL, version INTEGER NOT NULL,
                frame TEXT NOT NULL, PRIMARY KEY (kind, id, version));
            CREATE TABLE IF NOT EXISTS set_aside (
                kind TEXT NOT NULL, id TEXT NOT NULL, epoch TEXT NOT NULL, version INTEGER NOT NULL,
                state TEXT NOT NULL, reason TEXT NOT NULL, set_aside_at INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS store_runs (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
            \(schemaVersion == 1 ? "ALTER TABLE instances ADD COLUMN run INTEGER NOT NULL DEFAULT 0;" : "")
            PRAGMA application_id = \(applicationID);
            PRAGMA user_version = 2;
            COMMIT;
            """
        )
        return try StoreRuns.begin(connection, durable: fullSync)
    }

    /// The statements the writer thread runs for each batch.
    struct WriteStatements {
        let begin: SQLiteStatement
        let commit: SQLiteStatement
        let rollback: SQLiteStatement
        let upsertInstance: SQLiteStatement
        let deleteOtherEpochPatches: SQLiteStatement
        let insertPatch: SQLiteStatement
        let trimPatches: SQLiteStatement
        let trimPatchBytes: SQLiteStatement
        let setAsideInstance: SQLiteStatement
        let deleteInstance: SQLiteStatement
        let deletePatches: SQLiteStatement

        init(_ connection: SQLiteConnection) throws(PersistenceError) {
            begin = try connection.prepare("BEGIN IMMEDIATE")
            commit = try connection.prepare("COMMIT")
            rollback = try connection.prepare("ROLLBACK")
            upsertInstance = try connection.prepare(
                """
                INSERT INTO instances (kind, id, epoch, version, state, updated_at, run) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                ON CONFLICT (kind, id) DO UPDATE SET epoch = excluded.epoch, version = excluded.version,
                    state = excluded.state, updated_at = excluded.updated_at, run = excluded.run
                """
            )
            deleteOtherEpochPatches = try connection.prepare("DELETE FROM patches WHERE kind = ?1 AND id = ?2 AND epoch <> ?3")
            insertPatch = try connection.prepare(
                "INSERT OR REPLACE INTO patches (kind, id, epoch, version, frame) VALUES (?1, ?2, ?3, ?4, ?5)"
            )
            trimPatches = try connection.prepare("DELETE FROM patches WHERE kind = ?1 AND id = ?2 AND version <= ?3")
            // The newest patches whose frames fit in ?3 bytes stay (history.maxBytes).
            trimPatchBytes = try connection.prepare(
                """
                DELETE FROM patches WHERE kind = ?1 AND id = ?2 AND version < (
                    SELECT COALESCE(MIN(version), 9223372036854775807) FROM (
                        SELECT version, SUM(length(frame)) OVER (ORDER BY version DESC) AS total
                        FROM patches WHERE kind = ?1 AND id = ?2
                    ) WHERE total <= ?3)
                """
            )
            setAsideInstance = try connection.prepare(
                """
                INSERT INTO set_aside (kind, id, epoch, version, state, reason, set_aside_at)
                SELECT kind, id, epoch, version, state, ?3, ?4 FROM instances WHERE kind = ?1 AND id = ?2
                """
            )
            deleteInstance = try connection.prepare("DELETE FROM instances WHERE kind = ?1 AND id = ?2")
            deletePatches = try connection.prepare("DELETE FROM patches WHERE kind = ?1 AND id = ?2")
        }
    }
}
