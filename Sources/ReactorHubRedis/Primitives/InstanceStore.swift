public import ReactorHubLogging

/// An instance's durable record in Redis: its meta (epoch, version), its history stream,
/// its snapshot and its remembered action ids. Every write is fenced by the owner's
/// lease, so a node that lost an instance writes nothing more to it.
///
/// The owner commits each version (or a burst of versions) with `commit`; followers get
/// each entry on the instance's channel (`channel(of:)`, decoded with
/// `LogEntry(channelMessage:)`) and repair gaps with `entries(of:after:)`; resumes are
/// served by `history(of:epoch:after:)`; takeovers and followers start from `load`.
public struct InstanceStore: Sendable {
    let client: RedisClient
    /// The client of the fenced writes and of `waitForReplicas`: `WAIT` confirms what its
    /// own connection wrote, and blocks it meanwhile.
    let writer: RedisClient
    let options: ClusterOptions
    let logger: Logger

    /// The store of the instances under `options.keyPrefix`: reads through `client`,
    /// fenced writes through `writer` (by default `client` too).
    public init(client: RedisClient, writer: RedisClient? = nil, options: ClusterOptions, logger: Logger) {
        self.client = client
        self.writer = writer ?? client
        self.options = options
        self.logger = logger
    }

    /// The pub/sub channel on which `address`'s committed entries are published.
    public func channel(of address: String) -> String {
        options.keys.instance(address).channel
    }

    /// Commits `entries` (each applying to the version before it: `base`, or
    /// `version - 1`, is the previous entry's version, `expected` for the first; a chain
    /// that does not hold is a `.reply` error and nothing is written) in one script:
    /// checks that `lease` still holds the instance, that it is in `epoch` at version
    /// `expected`; appends each entry to the log (ID `VERSION-0`), remembers its action
    /// id and reply, publishes it on the channel, sets the version to the last entry's,
    /// and trims the log to the last `historySize` versions. Unless `publish`, the entries
    /// are neither published nor confirmed: `confirm` does both once `waitForReplicas`
    /// confirmed them.
    public func commit(
        _ lease: Lease,
        epoch: String,
        expected: Int,
        entries: [CommitEntry],
        publish: Bool = true
    ) async throws(RedisError) -> CommitOutcome {
        guard !entries.isEmpty else { return .committed(version: expected) }
        let keys = options.keys.instance(lease.address)
        var arguments: [RedisArgument] = [
            RedisArgument(lease.token), RedisArgument(epoch), .int(expected), .int(options.historySize),
            RedisArgument(keys.channel), .milliseconds(options.dedupeWindow), .int(options.dedupeEntries),
            publish ? "1" : "0", .int(entries.count),
        ]
        for entry in entries {
            arguments += [
                .int(entry.version),
                entry.base.map { .int($0) } ?? "",
                .bytes(entry.patch),
                RedisArgument(entry.actionID ?? ""),
                .bytes(entry.reply ?? []),
                .bytes(entry.replyTo ?? []),
            ]
        }
        let outcome = try CommitOutcome(
            reply: await writer.run(InstanceScripts.commit, keys: Self.writeKeys(keys), arguments: arguments),
            "commit"
        )
        if case .committed = outcome {} else {
            logger.info("commit refused", metadata: ["reactor": lease.address, "outcome": "\(outcome)"])
        }
        return outcome
    }

    /// Records the reply to an action that changed nothing (an ack without a change, or
    /// an error): remembers it under `actionID` when given, and when `logged` also
    /// appends it to the log after every patch so far and publishes it, so that the
    /// origin node of a forwarded action (`replyTo`) delivers it before any later patch.
    public func reply(
        _ lease: Lease,
        epoch: String,
        reply: [UInt8],
        actionID: String? = nil,
        replyTo: [UInt8]? = nil,
        logged: Bool = true
    ) async throws(RedisError) -> CommitOutcome {
        try await record(lease, epoch: epoch, reply: reply, actionID: actionID, replyTo: replyTo, logged: logged, publish: true).outcome
    }

    /// `reply`, also saying where the logged entry landed; unless `publish`, it is neither
    /// published nor confirmed until `confirm`.
    public func record(
        _ lease: Lease,
        epoch: String,
        reply: [UInt8],
        actionID: String?,
        replyTo: [UInt8]?,
        logged: Bool,
        publish: Bool
    ) async throws(RedisError) -> (outcome: CommitOutcome, position: LogPosition?) {
        let keys = options.keys.instance(lease.address)
        let arguments: [RedisArgument] = [
            RedisArgument(lease.token), RedisArgument(epoch), RedisArgument(keys.channel),
            .milliseconds(options.dedupeWindow), .int(options.dedupeEntries),
            RedisArgument(actionID ?? ""), .bytes(reply), .bytes(replyTo ?? []), logged ? "1" : "0", publish ? "1" : "0",
        ]
        let value = try await writer.run(InstanceScripts.reply, keys: Self.writeKeys(keys), arguments: arguments)
        let position = value.array.flatMap { $0.count == 3 ? $0[2].text : nil }.flatMap(LogPosition.init(streamID:))
        return (try CommitOutcome(reply: value, "reply"), position)
    }

    /// Publishes, in order, every entry written after `confirmed` and confirms them: call
    /// once `waitForReplicas` confirmed they reached `cluster.minReplicas` replicas.
    public func confirm(_ lease: Lease, epoch: String) async throws(RedisError) -> CommitOutcome {
        let keys = options.keys.instance(lease.address)
        return try CommitOutcome(
            reply: await writer.run(
                InstanceScripts.confirm,
                keys: [RedisArgument(keys.lease), RedisArgument(keys.meta), RedisArgument(keys.log)],
                arguments: [RedisArgument(lease.token), RedisArgument(epoch), RedisArgument(keys.channel)]
            ),
            "confirm"
        )
    }

    /// How many replicas have every write the writer's connection made so far, waiting up
    /// to `timeout` for `count` of them (`WAIT`). A write on the connection comes first (a
    /// PUBLISH nobody hears), so that a connection made after the writes it vouches for
    /// (a reconnection) still counts them: `WAIT` counts from its connection's last write.
    public func waitForReplicas(_ count: Int, timeout: Duration) async throws(RedisError) -> Int {
        let replies = try await writer.pipeline([
            ["PUBLISH", RedisArgument(options.keys.wait), ""],
            ["WAIT", .int(count), .milliseconds(timeout)],
        ])
        guard replies.count == 2 else { throw RedisError(.unexpectedReply, "wait: \(replies)") }
        return try replies[1].throwingError().expectInteger("wait")
    }

    /// Starts the instance's history afresh under `lease`: a new instance, or a new epoch
    /// when `load` found nothing for an instance that existed (Redis lost its data). The
    /// log is emptied; meta and the snapshot are set to `epoch`, `version`, `state`.
    /// Remembered action ids are kept.
    public func startEpoch(
        _ lease: Lease,
        epoch: String,
        version: Int,
        state: [UInt8]
    ) async throws(RedisError) -> CommitOutcome {
        let keys = options.keys.instance(lease.address)
        let outcome = try CommitOutcome(
            reply: await writer.run(
                InstanceScripts.startEpoch,
                keys: [RedisArgument(keys.lease), RedisArgument(keys.meta), RedisArgument(keys.log), RedisArgument(keys.snapshot)],
                arguments: [RedisArgument(lease.token), RedisArgument(epoch), .int(version), .bytes(state)]
            ),
            "start epoch"
        )
        logger.info("instance epoch started", metadata: ["reactor": lease.address, "epoch": epoch, "version": String(version)])
        return outcome
    }

    /// Writes `snapshot` under `lease` (every N versions, and at shutdown). Refused when
    /// it is ahead of the committed version or of another epoch; a snapshot older than
    /// the one kept is skipped (`committed` all the same).
    public func writeSnapshot(_ lease: Lease, _ snapshot: InstanceSnapshot) async throws(RedisError) -> CommitOutcome {
        let keys = options.keys.instance(lease.address)
        return try CommitOutcome(
            reply: await writer.run(
                InstanceScripts.snapshot,
                keys: [RedisArgument(keys.lease), RedisArgument(keys.meta), RedisArgument(keys.snapshot)],
                arguments: [
                    RedisArgument(lease.token), RedisArgument(snapshot.epoch), .int(snapshot.version), .bytes(snapshot.state),
                ]
            ),
            "snapshot"
        )
    }

    static func writeKeys(_ keys: InstanceKeys) -> [RedisArgument] {
        [keys.lease, keys.meta, keys.log, keys.actionIDs, keys.actionTimes].map { RedisArgument($0) }
    }
}
