/// The read-only scripts of `InstanceStore`: one consistent view of several keys.
enum InstanceReadScripts {
    /// KEYS: meta, snap, log. Returns false when meta is gone, else
    /// {epoch, version, snap epoch|false, snap version|false, snap state|false, tail}, the
    /// tail being the log after the snapshot (all of it when the snapshot is of another
    /// epoch or absent).
    static let load = RedisScript(name: "instance-load", source: """
        local meta = redis.call('HMGET', KEYS[1], 'epoch', 'version')
        if not meta[1] then return false end
        local snap = redis.call('HMGET', KEYS[2], 'epoch', 'version', 'state')
        local from = '-'
        if snap[1] == meta[1] and snap[2] then
          from = string.format('%d', tonumber(snap[2]) + 1) .. '-0'
        else
          snap = {false, false, false}
        end
        return {meta[1], meta[2], snap[1], snap[2], snap[3], redis.call('XRANGE', KEYS[3], from, '+')}
        """)

    /// KEYS: meta, log. ARGV: first stream ID. Returns false when meta is gone, else
    /// {epoch, version, entries from that ID on}.
    static let entries = RedisScript(name: "instance-entries", source: """
        local meta = redis.call('HMGET', KEYS[1], 'epoch', 'version')
        if not meta[1] then return false end
        return {meta[1], meta[2], redis.call('XRANGE', KEYS[2], ARGV[1], '+')}
        """)
}
