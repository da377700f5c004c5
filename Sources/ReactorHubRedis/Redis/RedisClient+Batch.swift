extension RedisClient {
    /// One call of a script: its keys and arguments.
    public struct ScriptCall: Sendable, Hashable {
        /// The keys (KEYS in Lua).
        public var keys: [RedisArgument]
        /// The arguments (ARGV in Lua).
        public var arguments: [RedisArgument]

        /// A call with `keys` and `arguments`.
        public init(keys: [RedisArgument], arguments: [RedisArgument]) {
            self.keys = keys
            self.arguments = arguments
        }
    }

    /// Runs `script` once per call in one round trip (EVALSHA pipelined); calls that meet
    /// NOSCRIPT run again with EVAL. For independent calls only (renewing many leases):
    /// each reply, error replies included as `.error`, is at its call's index.
    public func run(_ script: RedisScript, batch calls: [ScriptCall]) async throws(RedisError) -> [RedisValue] {
        guard !calls.isEmpty else { return [] }
        return try await perform { connection, scripts throws(RedisError) in
            let digest = try scripts.digest(of: script, on: connection)
            var replies = try connection.pipeline(calls.map { call in
                ["EVALSHA", RedisArgument(digest), .int(call.keys.count)] + call.keys + call.arguments
            })
            for index in replies.indices {
                if case .error(let error) = replies[index], error.replyPrefix == "NOSCRIPT" {
                    let call = calls[index]
                    let tail = [.int(call.keys.count)] + call.keys + call.arguments
                    replies[index] = try connection.pipeline([["EVAL", RedisArgument(script.source)] + tail])[0]
                }
            }
            return replies
        }
    }
}
