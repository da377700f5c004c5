/// The runs of the daemon over one database, and which stored rows may continue their
/// epoch (docs/protocol.md: a version number is never issued twice within one epoch).
///
/// Each start that serves begins a run (`SQLiteStateStore.beginRun`, once the daemon
/// listens; a start that fails before writes nothing): its number is one more than the
/// last, and the `clean_stop` marker is cleared in a committed transaction before the hub
/// can publish anything. A clean shutdown commits every pending change and then, in a transaction of
/// its own and last of all, sets `clean_stop`. Every instance row records the run that
/// last wrote it.
///
/// At the next open, the previous run is trusted when it set `clean_stop` (everything it
/// published was committed before the marker, and it published nothing after) or when it
/// ran with durable acks (it published nothing before it was committed). Otherwise every
/// row written before the new run is *unproven*: versions past it may have reached clients
/// and been lost, and the hub continues it under a new epoch. `trusted_from_run` keeps
/// that boundary across later clean runs, for rows nobody loaded in between.
///
/// A crash at any instant leaves one of two states. Before the marker's transaction
/// commits, `clean_stop` is 0 and the rows are treated as unproven (at worst needlessly:
/// clients get a snapshot instead of a resume). Once it commits, all of the run's changes
/// were committed before it. SQLite's transactions are atomic, so there is no third state.
struct StoreRuns: Sendable, Equatable {
    /// This run's number, written into every row it writes.
    var current: Int
    /// Rows written by runs before this one are unproven.
    var trustedFrom: Int
    /// Whether the previous run stopped cleanly (for the log).
    var previousStoppedCleanly: Bool

    static func begin(_ connection: SQLiteConnection, durable: Bool) throws(PersistenceError) -> StoreRuns {
        func value(_ key: String) throws(PersistenceError) -> Int? {
            try connection.scalar("SELECT value FROM store_runs WHERE key = '\(key)'").flatMap { Int($0) }
        }
        let previous = try value("run") ?? 0
        let cleanly = try value("clean_stop") == 1
        let wasDurable = try value("durable") == 1
        let current = previous + 1
        // A database of schema 1 (no bookkeeping) is treated as stopped uncleanly.
        let trustedFrom = (cleanly || wasDurable) ? (try value("trusted_from_run") ?? current) : current
        try connection.execute(
            """
            BEGIN IMMEDIATE;
            INSERT OR REPLACE INTO store_runs (key, value) VALUES
                ('run', \(current)), ('clean_stop', 0), ('durable', \(durable ? 1 : 0)), ('trusted_from_run', \(trustedFrom));
            COMMIT;
            """
        )
        return StoreRuns(current: current, trustedFrom: trustedFrom, previousStoppedCleanly: cleanly)
    }

    /// Sets the clean-stop marker; call once every change of the run is committed.
    static func markCleanStop(_ connection: SQLiteConnection) throws(PersistenceError) {
        try connection.execute("BEGIN IMMEDIATE; UPDATE store_runs SET value = 1 WHERE key = 'clean_stop'; COMMIT;")
    }
}
