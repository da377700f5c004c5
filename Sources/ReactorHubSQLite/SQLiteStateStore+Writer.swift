import ReactorHubProtocol
import Foundation
import ReactorHubStore
import ReactorHubJSON

/// The writer thread: commits each due batch in one transaction, then tells the waiters.
extension SQLiteStateStore {
    /// Commits batches until the store is closed, then sets the clean-stop marker (only
    /// when the last batch committed: a stop that loses changes is not clean).
    func writerLoop() {
        var failed = false
        var failuresWhileStopping = 0
        while let batch = pending.nextBatch(flushInterval: options.flushInterval, flushChanges: options.flushChanges) {
            do {
                let started = ContinuousClock.now
                try write(batch)
                commits.observe(.now - started)
                failing.withLock { $0 = false }
                failed = false
                for callback in pending.committed(batch) {
                    callback()
                }
            } catch {
                failed = true
                failing.withLock { $0 = true }
                if pending.isStopping {
                    failuresWhileStopping += 1
                    if failuresWhileStopping >= 3 {
                        logger.error(
                            "giving up on uncommitted state changes at shutdown",
                            metadata: ["path": options.path, "error": error.message, "changes": String(batch.changeCount)]
                        )
                        break
                    }
                }
                logger.error(
                    "could not commit state changes; retrying in 1 s",
                    metadata: ["path": options.path, "error": error.message, "changes": String(batch.changeCount)]
                )
                pending.requeue(batch)
                Thread.sleep(forTimeInterval: 1)
            }
        }
        // A run that never began wrote nothing (it loaded and recorded nothing): the
        // previous run's marker stays as it was.
        if !failed, hasBegun.load(ordering: .acquiring) {
            do {
                try StoreRuns.markCleanStop(writer)
            } catch {
                logger.error("could not mark the clean stop; the next start continues instances under new epochs", metadata: ["error": error.message])
            }
        }
        writerStopped()
    }

    private func write(_ batch: PendingBatches.Batch) throws(PersistenceError) {
        let now = Int(Date().timeIntervalSince1970 * 1000)
        let run = try run()
        let statements = run.statements
        try statements.begin.run()
        do {
            for (address, reason) in batch.setAsides {
                let setAside = statements.setAsideInstance
                setAside.bind(1, address.kind)
                setAside.bind(2, address.id)
                setAside.bind(3, reason)
                setAside.bind(4, now)
                try setAside.run()
                for statement in [statements.deleteInstance, statements.deletePatches] {
                    statement.bind(1, address.kind)
                    statement.bind(2, address.id)
                    try statement.run()
                }
                logger.warning("stored state set aside", metadata: ["kind": address.kind, "id": address.id, "reason": reason])
            }
            for (address, entry) in batch.entries {
                try write(entry, of: address, now: now, in: run)
            }
            try statements.commit.run()
        } catch {
            statements.rollback.reset()
            try? statements.rollback.run()
            throw error
        }
    }

    private func write(_ entry: PendingBatches.Entry, of address: ReactorAddress, now: Int, in run: BegunRun) throws(PersistenceError) {
        let statements = run.statements
        var writer = JSONWriter()
        writer.writeValue(entry.state)
        let upsert = statements.upsertInstance
        upsert.bind(1, address.kind)
        upsert.bind(2, address.id)
        upsert.bind(3, entry.epoch)
        upsert.bind(4, entry.version)
        upsert.bind(5, bytes: writer.bytes)
        upsert.bind(6, now)
        upsert.bind(7, run.runs.current)
        try upsert.run()

        let clean = statements.deleteOtherEpochPatches
        clean.bind(1, address.kind)
        clean.bind(2, address.id)
        clean.bind(3, entry.epoch)
        try clean.run()

        for patch in entry.patches {
            let insert = statements.insertPatch
            insert.bind(1, address.kind)
            insert.bind(2, address.id)
            insert.bind(3, entry.epoch)
            insert.bind(4, patch.version)
            insert.bind(5, bytes: patch.frame)
            try insert.run()
        }
        let trim = statements.trimPatches
        trim.bind(1, address.kind)
        trim.bind(2, address.id)
        trim.bind(3, entry.version - entry.keepPatches)
        try trim.run()
        if entry.keepBytes < Int.max {
            let trimBytes = statements.trimPatchBytes
            trimBytes.bind(1, address.kind)
            trimBytes.bind(2, address.id)
            trimBytes.bind(3, entry.keepBytes)
            try trimBytes.run()
        }
    }
}
