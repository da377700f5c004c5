/// Ownership of one instance by one node, fenced by a generation that grows with every
/// acquisition: a commit carries the lease's token and is refused once another node has
/// taken the instance, even by a node that stalled and woke up believing it still owns it.
public struct Lease: Sendable, Hashable {
    /// The instance, `KIND/ID`.
    public let address: String
    /// The owning node.
    public let node: String
    /// The fencing generation (`…:gen` after this acquisition's INCR).
    public let generation: Int
    /// The history line of the master that handed the generation out (`LuaSnippets.line`).
    public let line: String

    /// A lease as read from Redis.
    public init(address: String, node: String, generation: Int, line: String = "") {
        self.address = address
        self.node = node
        self.generation = generation
        self.line = line
    }

    /// The value stored in `…:lease`: `NODE:GEN@LINE`.
    public var token: String {
        line.isEmpty ? "\(node):\(generation)" : "\(node):\(generation)@\(line)"
    }
}

/// Who holds an instance's lease now.
public struct LeaseHolder: Sendable, Hashable {
    /// The holding node.
    public let node: String
    /// Its fencing generation.
    public let generation: Int
    /// The history line the generation was handed out in.
    public let line: String
    /// How long the lease lasts without renewal, as Redis counts it.
    public let remaining: Duration?

    /// Parses a `NODE:GEN@LINE` (or `NODE:GEN`) token; nil when it is not one.
    init?(token: String, remaining: Duration?) {
        guard let colon = token.lastIndex(of: ":") else { return nil }
        let fence = token[token.index(after: colon)...].split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let generation = fence.first.flatMap({ Int($0) }) else { return nil }
        self.node = String(token[..<colon])
        self.generation = generation
        self.line = fence.count == 2 ? String(fence[1]) : ""
        self.remaining = remaining
    }
}

/// What an attempt to take a lease found.
public enum LeaseAcquisition: Sendable, Hashable {
    /// The lease was free and is now this node's, with a new generation.
    case acquired(Lease)
    /// Another node (or this one, under an earlier acquisition) holds it.
    case held(by: LeaseHolder)
}
