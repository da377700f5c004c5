/// A Lua script run with EVALSHA, loaded once per connection with SCRIPT LOAD, and sent
/// in full with EVAL when Redis answers NOSCRIPT (its script cache is empty after a
/// restart or SCRIPT FLUSH).
public struct RedisScript: Sendable, Hashable {
    /// A short name for logs and errors.
    public let name: String
    /// The Lua source.
    public let source: String

    /// A script named `name` with the Lua `source`.
    public init(name: String, source: String) {
        self.name = name
        self.source = source
    }
}

/// The SHA1 of each script that SCRIPT LOAD returned on the current server; owned by the
/// client's worker thread.
final class ScriptCache {
    private var digests: [String: String] = [:]

    /// Runs `script` on `connection` (EVALSHA, loading it first when its digest is not
    /// known yet; EVAL when the server answers NOSCRIPT).
    func evaluate(
        _ script: RedisScript,
        keys: [RedisArgument],
        arguments: [RedisArgument],
        on connection: RedisConnection
    ) throws(RedisError) -> RedisValue {
        let tail = [.int(keys.count)] + keys + arguments
        let digest = RedisArgument(try self.digest(of: script, on: connection))
        do {
            return try connection.send(["EVALSHA", digest] + tail)
        } catch where error.replyPrefix == "NOSCRIPT" {
            // EVAL puts the script back in the server's cache under the same digest.
            return try connection.send(["EVAL", RedisArgument(script.source)] + tail)
        }
    }

    /// The script's SHA1 on this server, loaded with SCRIPT LOAD the first time.
    func digest(of script: RedisScript, on connection: RedisConnection) throws(RedisError) -> String {
        if let known = digests[script.source] { return known }
        guard let loaded = try connection.send(["SCRIPT", "LOAD", RedisArgument(script.source)]).text else {
            throw RedisError(.unexpectedReply, "SCRIPT LOAD \(script.name) returned no digest")
        }
        digests[script.source] = loaded
        return loaded
    }
}
