extension InstanceStore {
    /// One action id remembered in Redis, with its reply and how long ago it was recorded.
    public struct RememberedID: Sendable, Hashable {
        /// The idempotent action id.
        public var id: String
        /// The reply its sender got, as it was encoded.
        public var reply: [UInt8]
        /// How long ago (by Redis' clock) it was recorded.
        public var age: Duration
    }

    /// Every action id of `address` still within `dedupeWindow`, oldest first: what a new
    /// owner loads on a takeover, so that a resend through any node is not applied again.
    public func rememberedIDs(in address: String) async throws(RedisError) -> [RememberedID] {
        let keys = options.keys.instance(address)
        let replies = try await client.pipeline([
            ["TIME"],
            ["ZRANGE", RedisArgument(keys.actionTimes), 0, -1, "WITHSCORES"],
            ["HGETALL", RedisArgument(keys.actionIDs)],
        ])
        guard replies.count == 3 else { throw RedisError(.unexpectedReply, "remembered ids: \(replies)") }
        let time = try replies[0].throwingError().expectArray("time")
        guard time.count == 2 else { throw RedisError(.unexpectedReply, "TIME: \(time)") }
        let now = try time[0].expectInteger("time") * 1000 + (try time[1].expectInteger("time")) / 1000
        let scores = try replies[1].throwingError().expectArray("ids:at")
        let replyByID = try replies[2].throwingError().expectFieldMap("ids")
        var remembered: [RememberedID] = []
        var index = 0
        while index + 1 < scores.count {
            let id = try scores[index].expectText("id")
            let at = Int(Double(try scores[index + 1].expectText("recorded at")) ?? 0)
            index += 2
            let age = Duration.milliseconds(max(0, now - at))
            guard age < options.dedupeWindow, let reply = replyByID[id] else { continue }
            remembered.append(RememberedID(id: id, reply: reply, age: age))
        }
        return remembered
    }
}
