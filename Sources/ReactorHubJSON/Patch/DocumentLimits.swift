/// The bounds a document must keep under `JSONPatch.apply(_:to:byteCount:within:)`: what
/// the doc kind's `reactors.doc.*` settings hold.
public struct DocumentLimits: Sendable, Hashable {
    /// Bytes of the document's compact JSON.
    public var maxBytes: Int
    /// Arrays and objects on the deepest path, the root being 1; at most
    /// `JSONValue.maximumStateDepth`.
    public var maxDepth: Int
    /// Elements one array, or members one object, may hold: what one change to it copies
    /// at most, when its storage is shared with an earlier version.
    public var maxElements: Int
    /// Operations one patch may carry.
    public var maxOperations: Int

    /// Creates limits; the defaults are the doc kind's. A `maxDepth` above
    /// `JSONValue.maximumStateDepth` is taken as that.
    public init(maxBytes: Int = 1_048_576, maxDepth: Int = 64, maxElements: Int = 10_000, maxOperations: Int = 256) {
        self.maxBytes = maxBytes
        self.maxDepth = min(maxDepth, JSONValue.maximumStateDepth)
        self.maxElements = maxElements
        self.maxOperations = maxOperations
    }
}
