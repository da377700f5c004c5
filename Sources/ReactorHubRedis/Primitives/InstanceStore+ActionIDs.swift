extension InstanceStore {
    /// The reply remembered for action id `actionID` in `address` (within `dedupeWindow`),
    /// so that a resent action gets the same reply with `"duplicate":true` instead of
    /// being applied again; nil when the id is unknown or expired.
    ///
    /// Replies are remembered by `commit` (an action that changed the state) and by
    /// `reply` (an ack without a change, or an error; `logged: false` when the sender is
    /// on the owner node), both atomically with the rest of that write. At most
    /// `dedupeEntries` ids are kept per instance, the oldest dropped first.
    public func rememberedReply(actionID: String, in address: String) async throws(RedisError) -> [UInt8]? {
        let keys = options.keys.instance(address)
        let reply = try await client.run(
            NodeScripts.rememberedReply,
            keys: [RedisArgument(keys.actionIDs), RedisArgument(keys.actionTimes)],
            arguments: [RedisArgument(actionID), .milliseconds(options.dedupeWindow)]
        )
        if reply.isNull { return nil }
        return try reply.expectBytes("remembered reply")
    }
}
