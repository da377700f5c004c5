import Foundation
import ReactorHubLocking

/// What a store has once its run has begun: the run's numbers, the reader (whose
/// statements need the tables), and the writer's statements.
struct BegunRun {
    let runs: StoreRuns
    let reader: Locked<SQLiteReader>
    let statements: SQLiteSchema.WriteStatements
}

/// The first writes of a run (`StoreRuns`), made once the daemon serves.
extension SQLiteStateStore {
    /// Begins this run: switches the file to WAL, creates or migrates the tables, and
    /// commits the run's bookkeeping (the previous run's clean stop read, this run's marker
    /// cleared). Once; later calls return at once. The daemon calls it as soon as it
    /// listens; every load, record and the writer thread call it first.
    public func beginRun() throws(PersistenceError) {
        _ = try run()
    }

    /// The begun run, begun now when it was not.
    func run() throws(PersistenceError) -> BegunRun {
        let result: Result<BegunRun, PersistenceError> = begun.withLock { begun in
            if let begun { return .success(begun) }
            do throws(PersistenceError) {
                let runs = try SQLiteSchema.begin(writer, fullSync: options.fullSync)
                let made = BegunRun(
                    runs: runs,
                    reader: Locked(try SQLiteReader(path: options.path, trustedFromRun: runs.trustedFrom)),
                    statements: try SQLiteSchema.WriteStatements(writer)
                )
                begun = made
                hasBegun.store(true, ordering: .releasing)
                logBegun(runs)
                return .success(made)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Begins the run on the hot path (`record`), where a failure can only be logged: the
    /// writer thread meets it again and retries.
    func beginRunIfNeeded() {
        guard !hasBegun.load(ordering: .acquiring) else { return }
        do {
            try beginRun()
        } catch {
            logger.error("could not begin the store's run", metadata: ["path": options.path, "error": error.message])
        }
    }

    private func logBegun(_ runs: StoreRuns) {
        logger.info("state store run begun", metadata: ["path": options.path, "run": String(runs.current)])
        if runs.trustedFrom == runs.current && runs.current > 1 {
            logger.info(
                "the previous run did not stop cleanly and its acks were not durable: stored instances continue under new epochs (clients get snapshots)",
                metadata: ["path": options.path]
            )
        }
    }
}
