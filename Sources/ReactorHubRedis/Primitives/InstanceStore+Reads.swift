extension InstanceStore {
    /// What Redis holds of `address`: meta, the latest snapshot of its epoch and the log
    /// after it; nil when meta is gone. When the caller believed the instance existed, nil
    /// means Redis lost it: start a new epoch (`startEpoch`), never continue silently.
    public func load(_ address: String) async throws(RedisError) -> InstanceRecord? {
        let keys = options.keys.instance(address)
        let reply = try await client.run(
            InstanceReadScripts.load,
            keys: [RedisArgument(keys.meta), RedisArgument(keys.snapshot), RedisArgument(keys.log)],
            arguments: []
        )
        if reply.isNull { return nil }
        let parts = try reply.expectArray("load")
        guard parts.count == 9 else { throw RedisError(.unexpectedReply, "load: \(reply)") }
        let epoch = try parts[0].expectText("load epoch")
        var snapshot: InstanceSnapshot?
        if !parts[2].isNull {
            snapshot = InstanceSnapshot(
                epoch: try parts[2].expectText("snapshot epoch"),
                version: try parts[3].expectInteger("snapshot version"),
                state: try parts[4].expectBytes("snapshot state")
            )
        }
        return InstanceRecord(
            epoch: epoch,
            version: try parts[1].expectInteger("load version"),
            snapshot: snapshot,
            tail: try parts[5].expectArray("load tail").map { (element) throws(RedisError) in try LogEntry(streamElement: element) },
            line: parts[6].text,
            serverLine: try parts[7].expectText("load line"),
            confirmed: parts[8].text.flatMap(LogPosition.init(streamID:))
        )
    }

    /// The latest snapshot of `address`, whatever its epoch; nil when there is none.
    public func snapshot(of address: String) async throws(RedisError) -> InstanceSnapshot? {
        let fields = try await client.send(["HGETALL", RedisArgument(options.keys.instance(address).snapshot)])
            .expectFieldMap("snapshot")
        guard let epoch = fields["epoch"], let version = fields["version"], let state = fields["state"],
              let number = Int(String(decoding: version, as: UTF8.self))
        else { return nil }
        return InstanceSnapshot(epoch: String(decoding: epoch, as: UTF8.self), version: number, state: state)
    }

    /// The entries after `version` of `epoch`, to resume a client (`resumed` + patches)
    /// or catch a follower up: `.held` when the log still chains from `version` to the
    /// current version, `.notHeld` when it was trimmed past `version + 1`, the epoch
    /// differs or `version` is ahead (answer with a snapshot), `.missing` when Redis holds
    /// nothing of the instance.
    public func history(of address: String, epoch: String, after version: Int) async throws(RedisError) -> InstanceHistory {
        guard let (currentEpoch, current, entries) = try await read(address, from: "\(version + 1)-0") else {
            return .missing
        }
        guard currentEpoch == epoch, version <= current else {
            return .notHeld(epoch: currentEpoch, version: current)
        }
        var reached = version
        for entry in entries where entry.isPatch {
            guard entry.effectiveBase == reached else { return .notHeld(epoch: currentEpoch, version: current) }
            reached = entry.version
        }
        guard reached == current else { return .notHeld(epoch: currentEpoch, version: current) }
        return .held(entries)
    }

    /// Every log entry after `position` (patches and replies), for a follower that saw a
    /// gap in the channel or was told `.resubscribed`; nil when Redis holds nothing of the
    /// instance. The caller checks that the first patch's `effectiveBase` is the version
    /// it has, and reloads (`load`) when it is not.
    public func entries(of address: String, after position: LogPosition) async throws(RedisError) -> [LogEntry]? {
        try await read(address, from: position.next)?.entries
    }

    private func read(_ address: String, from start: String) async throws(RedisError) -> (epoch: String, version: Int, entries: [LogEntry])? {
        let keys = options.keys.instance(address)
        let reply = try await client.run(
            InstanceReadScripts.entries,
            keys: [RedisArgument(keys.meta), RedisArgument(keys.log)],
            arguments: [RedisArgument(start)]
        )
        if reply.isNull { return nil }
        let parts = try reply.expectArray("history")
        guard parts.count == 3 else { throw RedisError(.unexpectedReply, "history: \(reply)") }
        return (
            try parts[0].expectText("history epoch"),
            try parts[1].expectInteger("history version"),
            try parts[2].expectArray("history entries").map { (element) throws(RedisError) in try LogEntry(streamElement: element) }
        )
    }
}
