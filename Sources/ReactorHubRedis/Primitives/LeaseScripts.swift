/// The Lua scripts of `InstanceLeases`. Each runs atomically in Redis.
enum LeaseScripts {
    /// KEYS: lease, gen. ARGV: node, leaseMs.
    /// Free: INCR gen, SET lease NODE:GEN@LINE PX leaseMs, return {1, token}. Held: {0, token}.
    /// One script, so that a generation is never spent without the lease being taken. The
    /// token carries the history line: a generation that a failover lost and hands out again
    /// makes another token, never one a former owner still holds.
    static let acquire = RedisScript(name: "lease-acquire", source: LuaSnippets.line + """
        local holder = redis.call('GET', KEYS[1])
        if holder then return {0, holder} end
        local generation = redis.call('INCR', KEYS[2])
        local token = ARGV[1] .. ':' .. generation .. '@' .. line
        redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
        return {1, token}
        """)

    /// KEYS: lease. ARGV: token, leaseMs. PEXPIRE only while the value is still the token:
    /// 1 renewed, 0 lost.
    static let renew = RedisScript(name: "lease-renew", source: """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('PEXPIRE', KEYS[1], ARGV[2])
        end
        return 0
        """)

    /// KEYS: lease. ARGV: token. Compare-and-delete: 1 released, 0 not held by the token.
    static let release = RedisScript(name: "lease-release", source: """
        if redis.call('GET', KEYS[1]) == ARGV[1] then
          return redis.call('DEL', KEYS[1])
        end
        return 0
        """)
}

/// Lua pieces shared by several scripts.
enum LuaSnippets {
    /// Defines `line`: the history line of the server the script runs on, the first 16
    /// hex digits of its replication id. A replica promoted by a failover, or a master
    /// restarted, starts a new one, so writes that never reached it cannot be mistaken
    /// for part of its history (docs/cluster.md, "Fencing across a Redis failover").
    static let line = """
        local line = string.sub(string.match(redis.call('INFO', 'replication'), 'master_replid:(%x+)') or '', 1, 16)

        """

    /// Defines `now`: Redis' clock in milliseconds (one clock for every node, no skew).
    static let now = """
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)

        """
}
