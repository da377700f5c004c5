/// A `+switch-master` message of a sentinel: `NAME OLD-IP OLD-PORT NEW-IP NEW-PORT`, sent
/// once the sentinels made another server the master of `NAME`.
struct SwitchMasterNotice: Sendable, Hashable {
    /// The master's name at the sentinels.
    let masterName: String
    /// The server that was the master.
    let old: RedisEndpoint
    /// The server that is the master now.
    let new: RedisEndpoint

    init(masterName: String, old: RedisEndpoint, new: RedisEndpoint) {
        self.masterName = masterName
        self.old = old
        self.new = new
    }

    /// The notice in `payload`; nil when it is not one.
    init?(_ payload: [UInt8]) {
        let words = String(decoding: payload, as: UTF8.self).split(separator: " ").map(String.init)
        guard words.count == 5, let oldPort = Int(words[2]), let newPort = Int(words[4]) else { return nil }
        masterName = words[0]
        old = RedisEndpoint(host: words[1], port: oldPort)
        new = RedisEndpoint(host: words[3], port: newPort)
    }
}
