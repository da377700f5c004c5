public import ReactorHubProtocol
import Foundation
import Synchronization
public import ReactorHubStore
import ReactorHubJSON
public import ReactorHubLogging
import ReactorHubLocking
public import ReactorHubLifecycle
public import ReactorHubMetrics

/// Keeps every instance's state, version, epoch and recent patches in an SQLite database
/// (WAL mode), so that a restart is invisible to clients.
///
/// Writes stay off the hot path: `record` only updates an in-memory pending batch; a
/// writer thread commits the batch in one transaction every `flushInterval` (or sooner
/// once `flushChanges` changes are pending, or when someone waits for durability). A
/// crash loses at most the changes of the last `flushInterval`, and never half a batch;
/// `flush()` (called at shutdown) loses nothing.
///
/// Nothing is written to the file before the daemon serves: `open` locks it (`StoreLock`)
/// and reads; the first write, the run's bookkeeping (`StoreRuns`), happens in `beginRun`,
/// which the daemon calls once it listens and which every load, record and the writer
/// thread call first. A start that fails (the port in use) leaves the file as it was.
///
/// Safety of `@unchecked Sendable`: the writer connection is used under `begun`'s lock
/// until the run has begun, and only by the writer thread after; the reader connection
/// only under its lock; the pending batch only under `pending`'s lock.
public final class SQLiteStateStore: StateStore, @unchecked Sendable {
    /// How the store writes.
    public struct Options: Sendable, Equatable {
        /// The database file; its folder is created when missing.
        public var path: String
        /// The longest a change waits before it is committed (the crash-loss window).
        public var flushInterval: Duration = .milliseconds(200)
        /// A batch is committed early once this many changes are pending.
        public var flushChanges = 1000
        /// `synchronous=FULL` (each commit survives a power loss) instead of `NORMAL`
        /// (each commit survives a crash of the process). Used with durable acks.
        public var fullSync = false

        public init(path: String) {
            self.path = path
        }
    }

    let options: Options
    let logger: Logger
    let writer: SQLiteConnection
    /// This process's hold on the file.
    private let lock: StoreLock
    /// The run, once begun (`beginRun`).
    let begun = Locked<BegunRun?>(nil)
    /// Set once `begun` holds the run: the hot path (`record`) reads this, not the lock.
    let hasBegun = Atomic<Bool>(false)
    let pending = PendingBatches()
    /// How long each commit took.
    let commits = Histogram.latency()
    /// Set while commits fail (the writer retries every second).
    let failing = Locked(false)
    /// Opens when the writer thread has ended (after its last commit and the marker).
    private let writerEnded = Latch()
    private let started = Locked(false)

    private init(options: Options, writer: SQLiteConnection, lock: StoreLock, logger: Logger) {
        self.options = options
        self.writer = writer
        self.lock = lock
        self.logger = logger
    }

    /// Opens (or creates) the database at `options.path` for this process alone (another
    /// daemon holding it: `persistence.path: FILE is in use by another reactorhub (pid N)`),
    /// and checks that it is a ReactorHub database it can write. Reads only: the run begins,
    /// and the file is first written, in `beginRun`.
    public static func open(_ options: Options, logger: Logger) throws(PersistenceError) -> SQLiteStateStore {
        let folder = (options.path as NSString).deletingLastPathComponent
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw PersistenceError("\(options.path): cannot create the folder '\(folder)' (\(error.localizedDescription))")
            }
        }
        let lock = try StoreLock.acquire(for: options.path)
        let writer = try SQLiteConnection(path: options.path)
        try SQLiteSchema.inspect(writer)
        logger.info("state store opened", metadata: ["path": options.path, "flushMs": String(options.flushInterval.milliseconds)])
        reportSetAside(writer, logger: logger)
        return SQLiteStateStore(options: options, writer: writer, lock: lock, logger: logger)
    }

    /// Says at the start that states are set aside (kept, not loaded), naming the first
    /// instances; a database from before the table has none.
    private static func reportSetAside(_ connection: SQLiteConnection, logger: Logger) {
        guard let count = (try? connection.scalar("SELECT count(*) FROM set_aside")).flatMap({ $0.flatMap(Int.init) }), count > 0 else {
            return
        }
        let first = (try? connection.scalar(
            "SELECT group_concat(kind || '/' || id, ' ') FROM (SELECT DISTINCT kind, id FROM set_aside ORDER BY kind, id LIMIT 10)"
        )) ?? nil
        logger.warning("stored states are set aside (kept, not loaded); GET /admin/instances/KIND/ID lists them as setAside", metadata: [
            "count": String(count), "instances": first ?? "",
        ])
    }

    /// Starts the writer thread, once; `run()` does it too.
    public func start() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        let thread = Thread { [self] in
            writerLoop()
        }
        thread.name = "reactorhub-sqlite"
        thread.start()
    }

    // MARK: StateStore

    public func load(_ address: ReactorAddress) throws -> StoredInstance? {
        let stored = try run().reader.withLock { reader in
            try reader.load(address)
        }
        // The overlay also records the version found on disk as durable.
        return pending.overlay(address, on: stored)
    }

    public func setAsides(_ address: ReactorAddress) throws -> [SetAsideRecord] {
        try run().reader.withLock { reader in
            try reader.setAsides(address)
        }
    }

    public func record(_ change: StoredChange) {
        // The run's marker is committed before a change can be published.
        beginRunIfNeeded()
        if pending.add(change, flushChanges: options.flushChanges) {
            pending.wake()
        }
    }

    public func whenDurable(_ address: ReactorAddress, version: Int, _ body: @escaping @Sendable () -> Void) {
        if pending.addWaiter(address, version: version, body) {
            body()
        } else {
            pending.wake()
        }
    }

    public func setAside(_ address: ReactorAddress, reason: String) {
        beginRunIfNeeded()
        pending.setAside(address, reason: reason)
        pending.wake()
    }

    public var pendingChanges: Int { pending.pendingCount }
    public var flushDurations: Histogram? { commits }
    public var unavailableReason: String? {
        failing.withLock { $0 } ? "the state store cannot commit (\(options.path); see the log)" : nil
    }

    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            if pending.addFlushWaiter({ continuation.resume() }) {
                continuation.resume()
            } else {
                pending.wake()
            }
        }
    }

    /// Commits what is pending, stops the writer thread and marks the stop clean (see
    /// `StoreRuns`). Call once nothing more can reach clients (the server has stopped).
    public func close() async {
        start()
        pending.stop()
        await writerEnded.wait()
    }

    /// Called by the writer thread as it ends.
    func writerStopped() {
        writerEnded.open()
    }
}

/// The store's writer as a service: it commits until asked to stop, then commits what
/// is pending, marks the stop clean and returns. It is stopped last, after the hub and
/// the server, so that everything they published is in it.
extension SQLiteStateStore: Service {
    public var name: String { "sqlite" }

    public func run() async throws {
        start()
        await writerEnded.wait()
    }

    public func triggerGracefulShutdown() {
        pending.stop()
    }
}

extension Duration {
    var milliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}
