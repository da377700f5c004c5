/// The Lua scripts of nodes: heartbeat, live list, inbox posts, presence.
///
/// The node keys (`PREFIX:node:NODE`, `PREFIX:nodes`) carry no hash tag, as CLUSTER.md
/// lays them out; a Redis Cluster deployment would need them under one tag.
enum NodeScripts {
    /// KEYS: node key, nodes. ARGV: node, leaseMs, info.
    /// SET node key PX lease, ZADD nodes (now + lease) node, drop lapsed nodes; returns now.
    static let heartbeat = RedisScript(name: "node-heartbeat", source: LuaSnippets.now + """
        redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[2])
        redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
        return now
        """)

    /// KEYS: nodes. The nodes whose lease deadline is still ahead, by Redis' clock.
    static let live = RedisScript(name: "node-live", source: LuaSnippets.now + """
        return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. string.format('%d', now), '+inf')
        """)

    /// KEYS: inbox, target node key. ARGV: max length, ttl ms, from, instance, payload.
    /// Appends to the inbox only while the target node is alive: the entry ID, or false.
    static let post = RedisScript(name: "inbox-post", source: """
        if redis.call('EXISTS', KEYS[2]) == 0 then return false end
        local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*',
          'from', ARGV[3], 'instance', ARGV[4], 'payload', ARGV[5])
        redis.call('PEXPIRE', KEYS[1], ARGV[2])
        return id
        """)

    /// KEYS: presence:NODE, presence:nodes. ARGV: node, session, entry, leaseMs, remove,
    /// channel, notice. Sets or removes one session's entry, keeps the node's hash alive
    /// for one lease (the heartbeat renews it), publishes `notice` on the instance's
    /// channel when the entry changed, returns how many entries the node has left there.
    static let presence = RedisScript(name: "presence-set", source: """
        if ARGV[5] == '1' then
          if redis.call('HDEL', KEYS[1], ARGV[2]) == 1 then redis.call('PUBLISH', ARGV[6], ARGV[7]) end
        else
          redis.call('PUBLISH', ARGV[6], ARGV[7])
          redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
          redis.call('SADD', KEYS[2], ARGV[1])
          redis.call('PEXPIRE', KEYS[2], 86400000)
        end
        redis.call('PEXPIRE', KEYS[1], ARGV[4])
        return redis.call('HLEN', KEYS[1])
        """)

    /// KEYS: presence:nodes. ARGV: the presence hash prefix (`…:presence:`).
    /// {node, {session, entry, …}, …} for every node whose hash is still alive; nodes whose
    /// hash expired are dropped from the set.
    static let presenceRead = RedisScript(name: "presence-read", source: """
        local out = {}
        for _, node in ipairs(redis.call('SMEMBERS', KEYS[1])) do
          local entries = redis.call('HGETALL', ARGV[1] .. node)
          if #entries == 0 then
            redis.call('SREM', KEYS[1], node)
          else
            out[#out + 1] = node
            out[#out + 1] = entries
          end
        end
        return out
        """)

    /// KEYS: ids, ids:at. ARGV: action id, window ms. The remembered reply, or false when
    /// the id is unknown or older than the window.
    static let rememberedReply = RedisScript(name: "action-id-lookup", source: LuaSnippets.now + """
        local at = redis.call('ZSCORE', KEYS[2], ARGV[1])
        if not at or tonumber(at) < now - tonumber(ARGV[2]) then return false end
        return redis.call('HGET', KEYS[1], ARGV[1])
        """)
}
