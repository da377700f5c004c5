/// The read-only scripts of `InstanceStore`: one consistent view of several keys.
enum InstanceReadScripts {
    /// KEYS: meta, snap, log. Returns false when meta is gone, else
    /// {epoch, version, snap epoch|false, snap version|false, snap state|false, tail,
    /// epoch's line|false, this server's line, confirmed|false}, the tail being the log
    /// after the snapshot (all of it when the snapshot is of another epoch or absent),
    /// confirmed or not.
    static let load = RedisScript(name: "instance-load", source: LuaSnippets.line + """
        local meta = redis.call('HMGET', KEYS[1], 'epoch', 'version', 'line', 'confirmed')
        if not meta[1] then return false end
        local snap = redis.call('HMGET', KEYS[2], 'epoch', 'version', 'state')
        local from = '-'
        if snap[1] == meta[1] and snap[2] then
          from = string.format('%d', tonumber(snap[2]) + 1) .. '-0'
        else
          snap = {false, false, false}
        end
        return {meta[1], meta[2], snap[1], snap[2], snap[3], redis.call('XRANGE', KEYS[3], from, '+'), meta[3], line, meta[4]}
        """)

    /// KEYS: meta, log. ARGV: first stream ID. Returns false when meta is gone, else
    /// {epoch, confirmed version, the confirmed entries from that ID on}: what subscribers
    /// may see (everything, for a log written before `confirmed` existed).
    static let entries = RedisScript(name: "instance-entries", source: """
        local meta = redis.call('HMGET', KEYS[1], 'epoch', 'version', 'confirmed')
        if not meta[1] then return false end
        local version = meta[3] and string.match(meta[3], '^(%d+)-') or meta[2]
        return {meta[1], version, redis.call('XRANGE', KEYS[2], ARGV[1], meta[3] or '+')}
        """)
}
