/// What each sentinel last said about the master, and the master a majority of them names:
/// the pure rule behind `SentinelWatcher`, tested without sockets.
///
/// - A master is named when more than half of the configured sentinels answer with the
///   same address (unreachable ones count against it).
/// - A `+switch-master` from any sentinel is evidence that the old master is no longer
///   one: the other sentinels' answers naming it are set aside until they answer again,
///   and it is not named again until a majority has named another server since (or, should
///   that never happen, `banLength` has passed).
/// - So is a sentinel starting to promote one of its replicas: from then on what the old
///   master takes may never reach the new one (its other replicas still confirm it to
///   `WAIT`), so it is set aside likewise, unless the failover is given up.
struct SentinelVotes: Sendable {
    /// One sentinel's last answer.
    enum Answer: Sendable, Equatable {
        /// Not asked yet, or set aside by a `+switch-master`.
        case unknown
        /// Could not be asked; the error's message.
        case unreachable(String)
        /// It does not monitor a master of that name.
        case unknownMaster
        /// It names this server.
        case names(RedisEndpoint)
    }

    let sentinels: [RedisEndpoint]
    let masterName: String
    let banLength: Duration
    private(set) var answers: [Answer]
    /// The former master of the last `+switch-master`, and when it was heard.
    private(set) var banned: (endpoint: RedisEndpoint, since: ContinuousClock.Instant)?

    init(sentinels: [RedisEndpoint], masterName: String, banLength: Duration = .seconds(30)) {
        self.sentinels = sentinels
        self.masterName = masterName
        self.banLength = banLength
        self.answers = Array(repeating: .unknown, count: sentinels.count)
    }

    /// How many sentinels must agree: more than half.
    var majority: Int {
        sentinels.count / 2 + 1
    }

    /// Records what sentinel `index` answered to `get-master-addr-by-name`.
    mutating func record(_ answer: Answer, from index: Int) {
        answers[index] = answer
    }

    /// Records a `+switch-master` heard from sentinel `index`: it names `new` now, and
    /// `old` is no longer trusted.
    mutating func switched(from old: RedisEndpoint, to new: RedisEndpoint, by index: Int, at now: ContinuousClock.Instant) {
        for other in answers.indices where answers[other] == .names(old) {
            answers[other] = .unknown
        }
        answers[index] = .names(new)
        if old != new { banned = (old, now) }
    }

    /// A sentinel is promoting a replica of `master`: it is not named again until a majority
    /// names another server (or the failover is given up), though the sentinels still name it.
    mutating func promoting(_ master: RedisEndpoint, at now: ContinuousClock.Instant) {
        banned = (master, now)
    }

    /// The failover of `master` was given up: it may be named again.
    mutating func aborted(_ master: RedisEndpoint) {
        if banned?.endpoint == master { banned = nil }
    }

    /// The master a majority names now (never the banned former master); clears the ban
    /// once a majority names another server.
    mutating func named(at now: ContinuousClock.Instant) -> RedisEndpoint? {
        if let ban = banned, now - ban.since >= banLength { banned = nil }
        var counts: [RedisEndpoint: Int] = [:]
        for case .names(let endpoint) in answers {
            counts[endpoint, default: 0] += 1
        }
        guard let (endpoint, _) = counts.first(where: { $0.value >= majority }) else { return nil }
        if endpoint == banned?.endpoint { return nil }
        banned = nil
        return endpoint
    }

    /// Why no master is named (for `/readyz`): the sentinels that cannot be asked, or do not
    /// know `masterName`, or a failover under way.
    var missingReason: String {
        let unreachable = sentinels.indices.compactMap { index -> String? in
            guard case .unreachable(let why) = answers[index] else { return nil }
            return "\(sentinels[index]) (\(why))"
        }
        let strangers = sentinels.indices.filter { answers[$0] == .unknownMaster }.map { "\(sentinels[$0])" }
        if unreachable.count == sentinels.count {
            return "no sentinel answers: \(unreachable.joined(separator: ", "))"
        }
        if !strangers.isEmpty, strangers.count + unreachable.count == sentinels.count {
            return "the sentinels \(strangers.joined(separator: ", ")) do not know master '\(masterName)'"
                + (unreachable.isEmpty ? "" : "; no answer from \(unreachable.joined(separator: ", "))")
        }
        if let banned {
            return "Redis is failing over: waiting for a majority of the sentinels to name the master that replaces \(banned.endpoint)"
        }
        let said = sentinels.indices.map { index -> String in
            switch answers[index] {
            case .unknown: "\(sentinels[index]): not asked yet"
            case .unreachable(let why): "\(sentinels[index]): \(why)"
            case .unknownMaster: "\(sentinels[index]): does not know '\(masterName)'"
            case .names(let endpoint): "\(sentinels[index]): \(endpoint)"
            }
        }
        return "no master named by \(majority) of the \(sentinels.count) sentinels (\(said.joined(separator: "; ")))"
    }
}
