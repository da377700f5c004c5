public import JSON

/// Where instance state is kept between restarts (DESIGN.md "Seams"): the daemon uses
/// `MemoryStateStore` (nothing survives a restart) or the SQLite store of the
/// `Persistence` module.
///
/// The hub records every published change from the instance's serial context, so
/// `record` must not block: implementations queue it and write batches elsewhere.
public protocol StateStore: Sendable {
    /// What is kept of `address`, or nil when nothing is.
    func load(_ address: ReactorAddress) throws -> StoredInstance?
    /// Queues one published change: the state after it, and its patch frame (nil when
    /// the instance starts a new epoch and has no patch yet).
    func record(_ change: StoredChange)
    /// Calls `body` once every change recorded for `address` up to `version` is durable.
    func whenDurable(_ address: ReactorAddress, version: Int, _ body: @escaping @Sendable () -> Void)
    /// Moves what is kept of `address` aside (its state no longer decodes), never
    /// deleting it, so that the instance can start afresh.
    func setAside(_ address: ReactorAddress, reason: String)
    /// Returns once everything recorded so far is durable.
    func flush() async
}

/// One instance as kept between restarts.
public struct StoredInstance: Sendable, Equatable {
    public var epoch: String
    public var version: Int
    public var state: JSONValue
    /// The recent patch frames, by version, oldest first.
    public var patches: [StoredPatch]

    public init(epoch: String, version: Int, state: JSONValue, patches: [StoredPatch]) {
        self.epoch = epoch
        self.version = version
        self.state = state
        self.patches = patches
    }
}

/// One patch frame as sent to clients, kept for resumes across restarts.
public struct StoredPatch: Sendable, Equatable {
    public var version: Int
    public var frame: [UInt8]

    public init(version: Int, frame: [UInt8]) {
        self.version = version
        self.frame = frame
    }
}

/// A change the hub asks a store to keep.
public struct StoredChange: Sendable {
    public var address: ReactorAddress
    public var epoch: String
    public var version: Int
    public var state: JSONValue
    public var patch: StoredPatch?
    /// Patches older than `version - keepPatches` may be forgotten.
    public var keepPatches: Int

    public init(address: ReactorAddress, epoch: String, version: Int, state: JSONValue, patch: StoredPatch?, keepPatches: Int) {
        self.address = address
        self.epoch = epoch
        self.version = version
        self.state = state
        self.patch = patch
        self.keepPatches = keepPatches
    }
}
