/// Where an entry sits in an instance's log: its stream ID `VERSION-SEQUENCE`.
public struct LogPosition: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The version the log was at: the patch's version for `sequence` 0.
    public var version: Int
    /// 0 for a version's patch; 1, 2… for replies recorded while the log was at `version`.
    public var sequence: Int

    /// The position `version-sequence`.
    public init(version: Int, sequence: Int) {
        self.version = version
        self.sequence = sequence
    }

    /// Parses a stream ID `V-S`.
    init?(streamID: String) {
        let parts = streamID.split(separator: "-")
        guard parts.count == 2, let version = Int(parts[0]), let sequence = Int(parts[1]) else { return nil }
        self.init(version: version, sequence: sequence)
    }

    /// The stream ID.
    public var description: String {
        "\(version)-\(sequence)"
    }

    /// The first stream ID after this position (an inclusive XRANGE start).
    var next: String {
        "\(version)-\(sequence + 1)"
    }

    /// Log order: by version, then sequence.
    public static func < (lhs: LogPosition, rhs: LogPosition) -> Bool {
        (lhs.version, lhs.sequence) < (rhs.version, rhs.sequence)
    }
}

/// One entry of an instance's log, as XRANGE reads it and as the instance's channel
/// publishes it: a committed patch (with its operations), or a reply to an
/// action that changed nothing (an ack or an error for a forwarded action).
public struct LogEntry: Sendable, Hashable {
    /// Where the entry sits in the log.
    public var position: LogPosition
    /// The epoch it was committed in.
    public var epoch: String
    /// The entry's RFC 6902 operations (a JSON array); nil for a reply-only entry.
    public var patch: [UInt8]?
    /// When the patch spans several versions, the version it applies to.
    public var base: Int?
    /// The idempotent action id this entry answers, when the action had one.
    public var actionID: String?
    /// The reply to the action that caused this entry (the encoded `ack` or `error`),
    /// delivered to its sender before the patch.
    public var reply: [UInt8]?
    /// Who the reply is for (opaque to this module: the origin node and its session).
    public var replyTo: [UInt8]?

    /// The version of the patch (or the version the log was at, for a reply).
    public var version: Int {
        position.version
    }

    /// Whether this entry carries a patch.
    public var isPatch: Bool {
        patch != nil
    }

    /// The version the patch applies to: `base` when present, else `version - 1`.
    public var effectiveBase: Int {
        base ?? version - 1
    }

    /// An entry from a stream ID and its fields.
    init(streamID: String, fields: [String: [UInt8]]) throws(RedisError) {
        guard let position = LogPosition(streamID: streamID) else {
            throw RedisError(.unexpectedReply, "log entry ID '\(streamID)' is not VERSION-SEQUENCE")
        }
        self.position = position
        self.epoch = fields["epoch"].map { String(decoding: $0, as: UTF8.self) } ?? ""
        self.patch = fields["patch"]
        self.base = fields["base"].flatMap { Int(String(decoding: $0, as: UTF8.self)) }
        self.actionID = fields["id"].map { String(decoding: $0, as: UTF8.self) }
        self.reply = fields["reply"]
        self.replyTo = fields["to"]
    }

    /// An entry from one XRANGE element `[id, [field, value, …]]`.
    init(streamElement: RedisValue) throws(RedisError) {
        let parts = try streamElement.expectArray("log entry")
        guard parts.count == 2 else { throw RedisError(.unexpectedReply, "log entry: \(streamElement)") }
        try self.init(streamID: parts[0].expectText("log entry ID"), fields: parts[1].expectFieldMap("log entry fields"))
    }

    /// Decodes a message of an instance's channel: netstrings (`LEN:BYTES`) holding the
    /// stream ID, then field, value, field, value… (the same fields as the log entry).
    public init(channelMessage payload: [UInt8]) throws(RedisError) {
        guard let parts = Netstrings.parts(of: payload[...]) else {
            throw RedisError(.unexpectedReply, "channel message is not a list of netstrings")
        }
        guard let id = parts.first, parts.count % 2 == 1 else {
            throw RedisError(.unexpectedReply, "channel message has no entry ID or an odd field list")
        }
        var fields: [String: [UInt8]] = [:]
        for field in stride(from: 1, to: parts.count, by: 2) {
            fields[String(decoding: parts[field], as: UTF8.self)] = parts[field + 1]
        }
        try self.init(streamID: String(decoding: id, as: UTF8.self), fields: fields)
    }
}
