/// The messages of a sentinel that move a node's writes: `+switch-master` (the sentinels
/// made another server the master), `+failover-state-send-slaveof-noone` (a sentinel is
/// about to promote a replica: the master keeps taking writes that the promoted replica will
/// never have), and `-failover-abort-*` (that failover was given up).
enum SentinelNotice: Sendable, Hashable {
    case switched(masterName: String, old: RedisEndpoint, new: RedisEndpoint)
    case promoting(masterName: String, master: RedisEndpoint)
    case aborted(masterName: String, master: RedisEndpoint)

    /// The channels a node listens to on every sentinel.
    static let channels = ["+switch-master", "+failover-state-send-slaveof-noone"]
    /// And the patterns.
    static let patterns = ["-failover-abort-*"]

    /// The master's name the notice is about.
    var masterName: String {
        switch self {
        case .switched(let name, _, _), .promoting(let name, _), .aborted(let name, _): name
        }
    }

    /// The notice a message on `channel` holds; nil when it is none of these.
    ///
    /// `+switch-master`: `NAME OLD-IP OLD-PORT NEW-IP NEW-PORT`. The others name an instance
    /// then its master: `slave IP:PORT IP PORT @ NAME MASTER-IP MASTER-PORT`, or for the
    /// master itself `master NAME IP PORT`.
    init?(channel: String, payload: [UInt8]) {
        let words = String(decoding: payload, as: UTF8.self).split(separator: " ").map(String.init)
        if channel == "+switch-master" {
            guard words.count == 5, let old = Self.endpoint(words[1], words[2]), let new = Self.endpoint(words[3], words[4]) else {
                return nil
            }
            self = .switched(masterName: words[0], old: old, new: new)
            return
        }
        let master = words.firstIndex(of: "@").map { Array(words[($0 + 1)...]) } ?? (words.first == "master" ? Array(words.dropFirst()) : [])
        guard master.count >= 3, let endpoint = Self.endpoint(master[1], master[2]) else { return nil }
        if channel == "+failover-state-send-slaveof-noone" {
            self = .promoting(masterName: master[0], master: endpoint)
        } else if channel.hasPrefix("-failover-abort-") {
            self = .aborted(masterName: master[0], master: endpoint)
        } else {
            return nil
        }
    }

    private static func endpoint(_ host: String, _ port: String) -> RedisEndpoint? {
        Int(port).map { RedisEndpoint(host: host, port: $0) }
    }
}
