/// Where the sentinels are and which master to ask them for (`cluster.sentinels`,
/// `cluster.masterName`).
public struct SentinelConfiguration: Sendable, Hashable {
    /// Every sentinel; a master is named when more than half of them name it.
    public var sentinels: [RedisEndpoint]
    /// The name the sentinels monitor the master under.
    public var masterName: String
    /// How often each sentinel is asked for the master, besides following its
    /// `+switch-master` messages.
    public var pollInterval: Duration = .milliseconds(500)
    /// The links to the sentinels: timeouts and reconnection.
    public var link = RedisConfiguration(host: "", port: 0)

    /// The sentinels `sentinels` monitoring `masterName`, with the default timeouts.
    public init(sentinels: [RedisEndpoint], masterName: String) {
        self.sentinels = sentinels
        self.masterName = masterName
        link.name = "sentinel"
    }
}
