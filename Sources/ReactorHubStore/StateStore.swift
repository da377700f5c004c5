public import ReactorHubProtocol
public import ReactorHubJSON
public import ReactorHubMetrics

/// Where instance state is kept between restarts (DESIGN.md "Seams"): the daemon uses
/// `MemoryStateStore` (nothing survives a restart) or the SQLite store of the
/// `Persistence` module.
///
/// The hub records every published change from the instance's serial context, so
/// `record` must not block: implementations queue it and write batches elsewhere.
public protocol StateStore: Sendable {
    /// What is kept of `address`, or nil when nothing is; its `continuity` says whether
    /// its epoch may continue.
    func load(_ address: ReactorAddress) throws -> StoredInstance?
    /// Queues one published change: the state after it, and its patch frame (nil when
    /// the instance starts a new epoch and has no patch yet).
    func record(_ change: StoredChange)
    /// Calls `body` once every change recorded for `address` up to `version` is durable.
    func whenDurable(_ address: ReactorAddress, version: Int, _ body: @escaping @Sendable () -> Void)
    /// Moves what is kept of `address` aside (its state no longer decodes), never
    /// deleting it, so that the instance can start afresh.
    func setAside(_ address: ReactorAddress, reason: String)
    /// What was set aside of `address`, oldest first (`GET /admin/instances/KIND/ID` lists
    /// it as `setAside`), once written.
    func setAsides(_ address: ReactorAddress) throws -> [SetAsideRecord]
    /// The hub dropped `address` from memory (idle eviction); a store that keeps state only
    /// for the process's life may drop it too, so that its memory is handed back.
    func evicted(_ address: ReactorAddress)
    /// Returns once everything recorded so far is durable.
    func flush() async
    /// Changes recorded and not committed yet (`reactorhub_persistence_pending_changes`).
    var pendingChanges: Int { get }
    /// How long commits took (`reactorhub_persistence_flush_seconds`), when the store commits.
    var flushDurations: Histogram? { get }
    /// Why the store cannot serve right now (`/readyz`), or nil when it can.
    var unavailableReason: String? { get }
}

extension StateStore {
    /// A durable store keeps an evicted instance's state: the next join restores it.
    public func evicted(_ address: ReactorAddress) {}
    /// A store whose states always decode (they live no longer than the process) sets
    /// nothing aside.
    public func setAsides(_ address: ReactorAddress) throws -> [SetAsideRecord] { [] }
    public var pendingChanges: Int { 0 }
    public var flushDurations: Histogram? { nil }
    public var unavailableReason: String? { nil }
}

/// One instance as kept between restarts.
public struct StoredInstance: Sendable, Equatable {
    /// Whether the stored version is known to be the last one clients were sent.
    ///
    /// The rule every store holds (docs/protocol.md): a version number is never issued
    /// twice within one epoch. After an unclean stop without durable acks, versions past
    /// the stored one may have reached clients and been lost; continuing the same epoch
    /// would issue those numbers again with other contents, so the hub continues such an
    /// instance under a new epoch.
    public enum Continuity: Sendable, Equatable {
        /// Nothing past `version` was published: the epoch may continue.
        case proven
        /// The process that published this instance stopped uncleanly while acks were
        /// not durable: versions past `version` may have been published and lost.
        case unproven
    }

    /// The epoch the instance had.
    public var epoch: String
    /// Its version.
    public var version: Int
    /// Its state, as clients see it.
    public var state: JSONValue
    /// The recent patch frames, by version, oldest first.
    public var patches: [StoredPatch]
    /// Whether the epoch may continue from `version`.
    public var continuity: Continuity

    /// Creates a stored instance.
    public init(epoch: String, version: Int, state: JSONValue, patches: [StoredPatch], continuity: Continuity = .proven) {
        self.epoch = epoch
        self.version = version
        self.state = state
        self.patches = patches
        self.continuity = continuity
    }
}

/// One patch frame as sent to clients, kept for resumes across restarts.
public struct StoredPatch: Sendable, Equatable {
    /// The version the patch leads to.
    public var version: Int
    /// The frame's JSON text.
    public var frame: [UInt8]

    /// Creates a stored patch.
    public init(version: Int, frame: [UInt8]) {
        self.version = version
        self.frame = frame
    }
}

/// A change the hub asks a store to keep.
public struct StoredChange: Sendable {
    /// The instance.
    public var address: ReactorAddress
    /// Its epoch.
    public var epoch: String
    /// The version after the change.
    public var version: Int
    /// The state after the change.
    public var state: JSONValue
    /// The change's patch frame.
    public var patch: StoredPatch?
    /// Patches older than `version - keepPatches` may be forgotten.
    public var keepPatches: Int
    /// The newest patches whose frames take at most this many bytes are kept.
    public var keepBytes: Int

    /// Creates a change record.
    public init(
        address: ReactorAddress, epoch: String, version: Int, state: JSONValue, patch: StoredPatch?,
        keepPatches: Int, keepBytes: Int = .max
    ) {
        self.address = address
        self.epoch = epoch
        self.version = version
        self.state = state
        self.patch = patch
        self.keepPatches = keepPatches
        self.keepBytes = keepBytes
    }
}

extension Array where Element == StoredPatch {
    /// The newest patches, at most `count` of them and `bytes` of frames in all.
    public func newest(count: Int, bytes: Int) -> [StoredPatch] {
        var kept = 0
        var total = 0
        for patch in reversed() {
            guard kept < count, total + patch.frame.count <= bytes else { break }
            kept += 1
            total += patch.frame.count
        }
        return Array(suffix(kept))
    }
}

/// A stored state that no longer decoded, kept rather than replaced.
public struct SetAsideRecord: Sendable, Equatable {
    /// The epoch and version it had.
    public var epoch: String
    public var version: Int
    /// Why it did not decode.
    public var reason: String

    public init(epoch: String, version: Int, reason: String) {
        self.epoch = epoch
        self.version = version
        self.reason = reason
    }
}
