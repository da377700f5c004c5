/// The fenced write scripts of `InstanceStore`. Each checks the lease token (and the
/// epoch, and for commits the version) before writing anything, and validates its input
/// before the first write, since a Lua error does not undo earlier writes.
///
/// Every one returns `{status, detail}` (see `CommitOutcome`): `{'ok', VERSION}`,
/// `{'lease', HOLDER}`, `{'version', CURRENT}`, `{'epoch', CURRENT}`, `{'line', LINE}` or
/// `{'missing', ''}`.
///
/// meta holds `epoch`, `version` (the last entry written), `line` (the history line the
/// epoch was started in: `LuaSnippets.line`) and `confirmed` (the ID of the last entry
/// subscribers may see: with `cluster.minReplicas`, the last one `WAIT` confirmed).
enum InstanceScripts {
    /// Checks lease (KEYS[1] = ARGV[1]), meta (KEYS[2]'s epoch = ARGV[2]) and that the
    /// epoch was started in this server's history line (no failover since); defines `meta`.
    static let fence = LuaSnippets.line + """
        local holder = redis.call('GET', KEYS[1])
        if holder ~= ARGV[1] then return {'lease', holder or ''} end
        local meta = redis.call('HMGET', KEYS[2], 'epoch', 'version', 'line', 'confirmed')
        if not meta[1] then return {'missing', ''} end
        if meta[1] ~= ARGV[2] then return {'epoch', meta[1]} end
        if meta[3] ~= line then return {'line', meta[3] or ''} end

        """

    /// Defines `envelope(id, fields)`: the channel message, netstrings of the entry ID
    /// then each field and value (decoded by `LogEntry(channelMessage:)`).
    static let envelope = """
        local function envelope(id, fields)
          local out = {#id .. ':' .. id}
          for i = 1, #fields do out[#out + 1] = #fields[i] .. ':' .. fields[i] end
          return table.concat(out)
        end

        """

    /// Defines `remember(id, reply)` and `prune()`: action ids in KEYS[4] (hash) and
    /// KEYS[5] (recorded at, ms), expired after `window` ms and beyond `limit` entries.
    static func dedupe(window: String, limit: String) -> String {
        """
        local function remember(id, reply)
          redis.call('HSET', KEYS[4], id, reply)
          redis.call('ZADD', KEYS[5], now, id)
        end
        local function prune()
          local cutoff = '(' .. string.format('%d', now - tonumber(\(window)))
          local old = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', cutoff)
          for _, id in ipairs(old) do redis.call('HDEL', KEYS[4], id) end
          if #old > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', cutoff) end
          local extra = redis.call('ZCARD', KEYS[5]) - tonumber(\(limit))
          if extra > 0 then
            local popped = redis.call('ZPOPMIN', KEYS[5], extra)
            for i = 1, #popped, 2 do redis.call('HDEL', KEYS[4], popped[i]) end
          end
        end

        """
    }

    /// KEYS: lease, meta, log, ids, ids:at.
    /// ARGV: token, epoch, expected version, history size, channel, dedupe ms, dedupe max,
    /// publish ('1' or '0'), count, then per entry: version, base, patch, action id, reply,
    /// reply-to ('' = none).
    /// Each entry must apply to the one before (its base, or version - 1, is the previous
    /// version; the expected one for the first). Appends each entry as `VERSION-0`,
    /// remembers its action id, and when publishing publishes it and moves `confirmed` to
    /// it (else `confirm` does, once `WAIT` confirmed it); sets meta's version to the last
    /// one, trims the log to the last `history size` versions.
    static let commit = RedisScript(name: "instance-commit", source: fence + envelope + LuaSnippets.now
        + dedupe(window: "ARGV[6]", limit: "ARGV[7]") + """
        if tonumber(meta[2]) ~= tonumber(ARGV[3]) then return {'version', meta[2]} end
        local publish = ARGV[8] == '1'
        local count = tonumber(ARGV[9])
        local last = tonumber(meta[2])
        for i = 0, count - 1 do
          local version = tonumber(ARGV[10 + i * 6])
          local base = tonumber(ARGV[11 + i * 6])
          if not version or version <= last or (base or version - 1) ~= last then
            return redis.error_reply('ERR commit: each entry must apply to the version before it')
          end
          last = version
        end
        local top = redis.call('XREVRANGE', KEYS[3], '+', '-', 'COUNT', 1)[1]
        if top and tonumber(string.match(top[1], '^(%d+)-')) >= tonumber(ARGV[10]) then
          return redis.error_reply('ERR commit: the log already holds ' .. top[1])
        end
        for i = 0, count - 1 do
          local at = 10 + i * 6
          local fields = {'epoch', ARGV[2], 'version', ARGV[at], 'patch', ARGV[at + 2]}
          if ARGV[at + 1] ~= '' then fields[#fields + 1] = 'base'; fields[#fields + 1] = ARGV[at + 1] end
          if ARGV[at + 3] ~= '' then fields[#fields + 1] = 'id'; fields[#fields + 1] = ARGV[at + 3] end
          if ARGV[at + 4] ~= '' then fields[#fields + 1] = 'reply'; fields[#fields + 1] = ARGV[at + 4] end
          if ARGV[at + 5] ~= '' then fields[#fields + 1] = 'to'; fields[#fields + 1] = ARGV[at + 5] end
          local id = ARGV[at] .. '-0'
          redis.call('XADD', KEYS[3], id, unpack(fields))
          if ARGV[at + 3] ~= '' then remember(ARGV[at + 3], ARGV[at + 4]) end
          if publish then redis.call('PUBLISH', ARGV[5], envelope(id, fields)) end
        end
        local version = string.format('%d', last)
        redis.call('HSET', KEYS[2], 'version', version)
        if publish then redis.call('HSET', KEYS[2], 'confirmed', version .. '-0') end
        local keep = tonumber(ARGV[4])
        if keep > 0 and last - keep + 1 > 0 then
          redis.call('XTRIM', KEYS[3], 'MINID', string.format('%d', last - keep + 1))
        end
        prune()
        return {'ok', version}
        """)

    /// KEYS: lease, meta, log, ids, ids:at.
    /// ARGV: token, epoch, channel, dedupe ms, dedupe max, action id, reply, reply-to,
    /// logged ('1' or '0'), publish ('1' or '0').
    /// Remembers the action id's reply (when given); when logged, appends a reply entry at
    /// `CURRENT-*` (after every patch so far, before any later one), returned as a third
    /// element, and when publishing publishes it and moves `confirmed` to it.
    static let reply = RedisScript(name: "instance-reply", source: fence + envelope + LuaSnippets.now
        + dedupe(window: "ARGV[4]", limit: "ARGV[5]") + """
        if ARGV[6] ~= '' then
          remember(ARGV[6], ARGV[7])
          prune()
        end
        if ARGV[9] == '1' then
          local fields = {'epoch', ARGV[2], 'version', meta[2], 'reply', ARGV[7]}
          if ARGV[6] ~= '' then fields[#fields + 1] = 'id'; fields[#fields + 1] = ARGV[6] end
          if ARGV[8] ~= '' then fields[#fields + 1] = 'to'; fields[#fields + 1] = ARGV[8] end
          local id = redis.call('XADD', KEYS[3], meta[2] .. '-*', unpack(fields))
          if ARGV[10] == '1' then
            redis.call('PUBLISH', ARGV[3], envelope(id, fields))
            redis.call('HSET', KEYS[2], 'confirmed', id)
          end
          return {'ok', meta[2], id}
        end
        return {'ok', meta[2]}
        """)

    /// KEYS: lease, meta, log. ARGV: token, epoch, channel.
    /// Once `WAIT` confirmed every entry written so far reached `cluster.minReplicas`
    /// replicas: publishes the entries after `confirmed`, in order, and moves `confirmed`
    /// to the last one, so that subscribers (and the senders' acks) see them only now.
    static let confirm = RedisScript(name: "instance-confirm", source: fence + envelope + """
        local entries = redis.call('XRANGE', KEYS[3], meta[4] and ('(' .. meta[4]) or '-', '+')
        for _, entry in ipairs(entries) do
          redis.call('PUBLISH', ARGV[3], envelope(entry[1], entry[2]))
        end
        if #entries > 0 then redis.call('HSET', KEYS[2], 'confirmed', entries[#entries][1]) end
        return {'ok', meta[2]}
        """)

    /// KEYS: lease, meta, snap. ARGV: token, epoch, version, state.
    /// Writes the snapshot unless it is ahead of meta's version, or older than the one kept.
    static let snapshot = RedisScript(name: "instance-snapshot", source: fence + """
        if tonumber(ARGV[3]) > tonumber(meta[2]) then return {'version', meta[2]} end
        local kept = redis.call('HMGET', KEYS[3], 'epoch', 'version')
        if kept[1] == ARGV[2] and tonumber(kept[2]) > tonumber(ARGV[3]) then return {'ok', meta[2]} end
        redis.call('HSET', KEYS[3], 'epoch', ARGV[2], 'version', ARGV[3], 'state', ARGV[4])
        return {'ok', meta[2]}
        """)

    /// KEYS: lease, meta, log, snap. ARGV: token, epoch, version, state.
    /// Starts a history afresh (a new instance, or a new epoch after Redis lost the data or
    /// failed over): empties the log, sets meta (in this server's history line) and the
    /// snapshot. Checks the lease only.
    static let startEpoch = RedisScript(name: "instance-start-epoch", source: LuaSnippets.line + """
        local holder = redis.call('GET', KEYS[1])
        if holder ~= ARGV[1] then return {'lease', holder or ''} end
        redis.call('DEL', KEYS[3], KEYS[4])
        redis.call('HSET', KEYS[2], 'epoch', ARGV[2], 'version', ARGV[3], 'line', line, 'confirmed', ARGV[3] .. '-0')
        redis.call('HSET', KEYS[4], 'epoch', ARGV[2], 'version', ARGV[3], 'state', ARGV[4])
        return {'ok', ARGV[3]}
        """)
}
