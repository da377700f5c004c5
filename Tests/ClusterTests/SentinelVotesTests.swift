@testable import ReactorHubRedis
import Testing

/// The rule that names the master from what the sentinels say (`SentinelVotes`), without
/// sockets.
@Suite("The master a majority of the sentinels names")
struct SentinelVotesTests {
    let sentinels = [26001, 26002, 26003].map { RedisEndpoint(host: "127.0.0.1", port: $0) }
    let old = RedisEndpoint(host: "127.0.0.1", port: 7001)
    let new = RedisEndpoint(host: "127.0.0.1", port: 7002)

    func votes() -> SentinelVotes {
        SentinelVotes(sentinels: sentinels, masterName: "mymaster", banLength: .seconds(30))
    }

    @Test func aMasterIsNamedOnlyByMoreThanHalfOfTheSentinels() {
        var votes = votes()
        let now = ContinuousClock.now
        #expect(votes.majority == 2)
        votes.record(.names(old), from: 0)
        let named1 = votes.named(at: now)
        #expect(named1 == nil)
        votes.record(.unreachable("Connection refused"), from: 1)
        let named2 = votes.named(at: now)
        #expect(named2 == nil)
        votes.record(.names(old), from: 2)
        let named3 = votes.named(at: now)
        #expect(named3 == old)
        votes.record(.names(new), from: 2)
        let named4 = votes.named(at: now)
        #expect(named4 == nil)
        #expect(votes.missingReason == "no master named by 2 of the 3 sentinels (127.0.0.1:26001: 127.0.0.1:7001; 127.0.0.1:26002: Connection refused; 127.0.0.1:26003: 127.0.0.1:7002)")
    }

    @Test func theReasonNamesTheSentinelsThatDoNotAnswerOrTheMasterTheyDoNotKnow() {
        var votes = votes()
        #expect(votes.missingReason.hasPrefix("no master named by 2 of the 3 sentinels"))
        for index in sentinels.indices {
            votes.record(.unreachable("Connection refused"), from: index)
        }
        #expect(votes.missingReason == "no sentinel answers: 127.0.0.1:26001 (Connection refused), 127.0.0.1:26002 (Connection refused), 127.0.0.1:26003 (Connection refused)")
        votes.record(.unknownMaster, from: 0)
        votes.record(.unknownMaster, from: 1)
        #expect(votes.missingReason == "the sentinels 127.0.0.1:26001, 127.0.0.1:26002 do not know master 'mymaster'; no answer from 127.0.0.1:26003 (Connection refused)")
        votes.record(.unknownMaster, from: 2)
        #expect(votes.missingReason == "the sentinels 127.0.0.1:26001, 127.0.0.1:26002, 127.0.0.1:26003 do not know master 'mymaster'")
        let named5 = votes.named(at: .now)
        #expect(named5 == nil)
    }

    @Test func aSwitchSetsTheOldMasterAsideUntilAMajorityNamesAnother() {
        var votes = votes()
        let now = ContinuousClock.now
        for index in sentinels.indices {
            votes.record(.names(old), from: index)
        }
        let named6 = votes.named(at: now)
        #expect(named6 == old)
        votes.switched(from: old, to: new, by: 0, at: now)
        // The others' answers naming the old master are set aside, and it is not named again
        // even when two of them still say so.
        #expect(votes.answers == [.names(new), .unknown, .unknown])
        let named7 = votes.named(at: now)
        #expect(named7 == nil)
        votes.record(.names(old), from: 1)
        votes.record(.names(old), from: 2)
        let named8 = votes.named(at: now)
        #expect(named8 == nil)
        #expect(votes.missingReason == "Redis is failing over: waiting for a majority of the sentinels to name the master that replaces 127.0.0.1:7001")
        votes.record(.names(new), from: 1)
        let named9 = votes.named(at: now)
        #expect(named9 == new)
        #expect(votes.banned == nil)
        // Named again later (a failover back), the old master is a master like any other.
        votes.record(.names(old), from: 0)
        votes.record(.names(old), from: 1)
        let named10 = votes.named(at: now)
        #expect(named10 == old)
    }

    @Test func aSwitchNobodyConfirmsIsForgottenAfterTheBan() {
        var votes = votes()
        let now = ContinuousClock.now
        votes.switched(from: old, to: new, by: 0, at: now)
        votes.record(.names(old), from: 1)
        votes.record(.names(old), from: 2)
        let named11 = votes.named(at: now + .seconds(29))
        #expect(named11 == nil)
        let named12 = votes.named(at: now + .seconds(30))
        #expect(named12 == old)
    }

    @Test func aPromotionUnderWaySetsTheMasterAsideUnlessItIsGivenUp() {
        var votes = votes()
        let now = ContinuousClock.now
        for index in sentinels.indices {
            votes.record(.names(old), from: index)
        }
        votes.promoting(old, at: now)
        let whilePromoting = votes.named(at: now)
        #expect(whilePromoting == nil)
        votes.aborted(new)
        let otherAbort = votes.named(at: now)
        #expect(otherAbort == nil)
        votes.aborted(old)
        let givenUp = votes.named(at: now)
        #expect(givenUp == old)
    }

    @Test func sentinelNoticesAreRead() {
        func notice(_ channel: String, _ text: String) -> SentinelNotice? {
            SentinelNotice(channel: channel, payload: Array(text.utf8))
        }
        #expect(notice("+switch-master", "mymaster 127.0.0.1 7001 127.0.0.1 7002") == .switched(masterName: "mymaster", old: old, new: new))
        #expect(notice("+switch-master", "mymaster 127.0.0.1 7001") == nil)
        #expect(notice("+switch-master", "mymaster 127.0.0.1 x 127.0.0.1 7002") == nil)
        #expect(notice("+failover-state-send-slaveof-noone", "slave 127.0.0.1:7002 127.0.0.1 7002 @ mymaster 127.0.0.1 7001")
            == .promoting(masterName: "mymaster", master: old))
        #expect(notice("-failover-abort-slave-timeout", "master mymaster 127.0.0.1 7001") == .aborted(masterName: "mymaster", master: old))
        #expect(notice("+sdown", "master mymaster 127.0.0.1 7001") == nil)
        #expect(notice("+failover-state-send-slaveof-noone", "slave 127.0.0.1:7002") == nil)
    }

    @Test func endpointsAreReadFromHostAndPort() {
        #expect(RedisEndpoint(address: "10.0.0.1:26379") == RedisEndpoint(host: "10.0.0.1", port: 26379))
        #expect(RedisEndpoint(address: "[::1]:26379") == RedisEndpoint(host: "::1", port: 26379))
        #expect(RedisEndpoint(address: "redis.internal:1") == RedisEndpoint(host: "redis.internal", port: 1))
        #expect(RedisEndpoint(address: "10.0.0.1") == nil)
        #expect(RedisEndpoint(address: ":26379") == nil)
        #expect(RedisEndpoint(address: "h:65536") == nil)
    }
}
