import ReactorHubLocking
public import ReactorHubLogging

/// Follows Redis Sentinel (shared/CLUSTER.md "Redis itself fails over"): asks every sentinel
/// for the master each `pollInterval` (`SENTINEL get-master-addr-by-name`), listens to their
/// `+switch-master`, and names in `directory` the server a majority of them names
/// (`SentinelVotes`). A `+switch-master` withdraws the old master at once: every link drops
/// its connection and nothing more is written there until a majority names the new one.
///
/// While the sentinels merely cannot be asked (after a master was named), the master last
/// named is kept: every link still checks with ROLE that it is a master. Until one is named
/// at all, `directory.missingReason` names the sentinels that do not answer, or the master
/// name they do not know.
///
/// One command link and one subscriber link per sentinel, each on a thread of its own like
/// every hiredis link. Long-running: `start()`, then `run()` until its task is cancelled.
public final class SentinelWatcher: Sendable {
    /// Where the master is, as the sentinels name it.
    public let directory: MasterDirectory
    private let configuration: SentinelConfiguration
    private let logger: Logger
    private let votes: Locked<SentinelVotes>
    private let clients: [RedisClient]
    private let subscribers: [RedisSubscriber]

    /// A watcher naming the master of `configuration` in `directory`; nothing connects
    /// before `start()`.
    public init(configuration: SentinelConfiguration, directory: MasterDirectory, logger: Logger) {
        self.configuration = configuration
        self.directory = directory
        self.logger = logger
        let votes = Locked(SentinelVotes(sentinels: configuration.sentinels, masterName: configuration.masterName))
        self.votes = votes
        var clients: [RedisClient] = []
        var subscribers: [RedisSubscriber] = []
        for (index, sentinel) in configuration.sentinels.enumerated() {
            var link = configuration.link
            link.host = sentinel.host
            link.port = sentinel.port
            link.name = "\(configuration.link.name)-\(index + 1)"
            link.clientName = configuration.link.clientName.map { "\($0)-sentinel" }
            let fixed = MasterDirectory.fixed(sentinel, expectsMaster: false)
            clients.append(RedisClient(configuration: link, directory: fixed, logger: logger))
            link.name += "-subscriber"
            subscribers.append(RedisSubscriber(configuration: link, directory: fixed, logger: logger) { event in
                let notice: SentinelNotice? = switch event {
                case .message(let channel, let payload): SentinelNotice(channel: channel, payload: payload)
                case .patternMessage(_, let channel, let payload): SentinelNotice(channel: channel, payload: payload)
                case .linkDown, .resubscribed: nil
                }
                guard let notice, notice.masterName == configuration.masterName else { return }
                Self.heard(notice, from: index, votes: votes, directory: directory, logger: logger)
            })
        }
        self.clients = clients
        self.subscribers = subscribers
        directory.withdraw(votes.withLock { $0.missingReason })
    }

    /// Connects to every sentinel (each link reconnects by itself).
    public func start() {
        clients.forEach { $0.start() }
        subscribers.forEach { $0.start() }
    }

    /// Follows the sentinels until the task is cancelled, then closes every link.
    public func run() async {
        for subscriber in subscribers {
            // A link that is down subscribes once it is up.
            try? await subscriber.subscribe(SentinelNotice.channels)
            try? await subscriber.subscribe(patterns: SentinelNotice.patterns)
        }
        await withTaskGroup(of: Void.self) { group in
            for index in clients.indices {
                group.addTask { await self.poll(index) }
            }
        }
        for client in clients {
            await client.shutdown()
        }
        for subscriber in subscribers {
            await subscriber.shutdown()
        }
    }

    private func poll(_ index: Int) async {
        while !Task.isCancelled {
            let answer = await ask(index)
            votes.withLock { $0.record(answer, from: index) }
            Self.settle(votes: votes, directory: directory, logger: logger)
            try? await Task.sleep(for: configuration.pollInterval)
        }
    }

    private func ask(_ index: Int) async -> SentinelVotes.Answer {
        do throws(RedisError) {
            let reply = try await clients[index].send(["SENTINEL", "get-master-addr-by-name", RedisArgument(configuration.masterName)])
            if reply.isNull { return .unknownMaster }
            let parts = try reply.expectArray("get-master-addr-by-name")
            guard parts.count == 2, let host = parts[0].text, let port = parts[1].integer else {
                throw RedisError(.unexpectedReply, "get-master-addr-by-name: \(reply)")
            }
            return .names(RedisEndpoint(host: host, port: Int(port)))
        } catch {
            // "cluster link down: connecting to HOST:PORT: Connection refused" says less as
            // "Connection refused": the sentinel's address is named beside it.
            return .unreachable(error.isLinkFailure ? String(error.message.split(separator: ": ").last ?? "") : error.message)
        }
    }

    /// A sentinel switched the master, or is promoting a replica: the old master is
    /// withdrawn now, before anything else is written to it. A failover given up lets it be
    /// named again.
    private static func heard(
        _ notice: SentinelNotice, from index: Int, votes: Locked<SentinelVotes>, directory: MasterDirectory, logger: Logger
    ) {
        switch notice {
        case .switched(_, let old, let new):
            votes.withLock { $0.switched(from: old, to: new, by: index, at: .now) }
            if directory.target.map({ $0.endpoint != new }) ?? false {
                directory.withdraw("Redis is failing over from \(old) to \(new): waiting for a majority of the sentinels")
                logger.warning("+switch-master: no more writes to the old master", metadata: [
                    "old": "\(old)", "new": "\(new)", "sentinel": "\(index + 1)",
                ])
            }
        case .promoting(_, let master):
            votes.withLock { $0.promoting(master, at: .now) }
            if directory.target?.endpoint == master {
                directory.withdraw("Redis is failing over: a sentinel is promoting a replica of \(master)")
                logger.warning("a sentinel promotes a replica: no more writes to the master", metadata: [
                    "master": "\(master)", "sentinel": "\(index + 1)",
                ])
            }
        case .aborted(_, let master):
            votes.withLock { $0.aborted(master) }
            logger.warning("a sentinel gave a failover up", metadata: ["master": "\(master)", "sentinel": "\(index + 1)"])
        }
        settle(votes: votes, directory: directory, logger: logger)
    }

    /// Names the master a majority names; without one, withdraws the master only when a
    /// failover was heard (sentinels that cannot be asked do not move the master).
    private static func settle(votes: Locked<SentinelVotes>, directory: MasterDirectory, logger: Logger) {
        let (named, reason, switching) = votes.withLock { votes in
            let named = votes.named(at: .now)
            return (named, votes.missingReason, votes.banned != nil)
        }
        if let named {
            if directory.name(named) {
                logger.info("redis master named by the sentinels", metadata: ["address": "\(named)"])
            }
        } else if directory.target == nil || switching {
            directory.withdraw(reason)
        }
    }
}
