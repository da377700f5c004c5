import ReactorHubRedis
import Testing

@Suite("Instance leases with fencing")
struct LeaseTests {
    @Test func acquireWhenFreeAndRefuseASecondNodeWhileHeld() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let b = cluster.options("node-b")
        let first = try await cluster.leases(a).acquire("counter/x")
        let line = try await cluster.line()
        #expect(line.count == 16)
        #expect(first == .acquired(Lease(address: "counter/x", node: "node-a", generation: 1, line: line)))
        guard case .held(let holder) = try await cluster.leases(b).acquire("counter/x") else {
            Issue.record("node-b took a lease node-a holds")
            return
        }
        #expect(holder.node == "node-a")
        #expect(holder.generation == 1)
        #expect(holder.line == line)
        let read = try #require(try await cluster.leases(b).holder(of: "counter/x"))
        #expect(read.node == "node-a")
        #expect(read.generation == 1)
        #expect(try #require(read.remaining) > .seconds(10))
        #expect(try await cluster.leases(b).holder(of: "counter/other") == nil)
        await cluster.stop()
    }

    @Test func expiryLetsAnotherNodeAcquireWithAHigherGeneration() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a", lease: .milliseconds(300))
        let b = cluster.options("node-b", lease: .milliseconds(300))
        guard case .acquired(let old) = try await cluster.leases(a).acquire("counter/x") else {
            Issue.record("the lease was not free")
            return
        }
        let new = try await cluster.takeOver("counter/x", b)
        #expect(new.node == "node-b")
        #expect(new.generation > old.generation)
        await cluster.stop()
    }

    @Test func renewByTheHolderSucceedsAndByAStaleTokenFails() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let b = cluster.options("node-b")
        guard case .acquired(let old) = try await cluster.leases(a).acquire("counter/x") else {
            Issue.record("the lease was not free")
            return
        }
        // Renewal puts the full lease back.
        _ = try await cluster.client.send(["PEXPIRE", "rh:{counter/x}:lease", 15_000])
        #expect(try await cluster.leases(a).renew(old))
        #expect(try #require(try await cluster.leases(a).holder(of: "counter/x")?.remaining) > .seconds(16))
        _ = try await cluster.client.send(["PEXPIRE", "rh:{counter/x}:lease", 1])
        let new = try await cluster.takeOver("counter/x", b)
        #expect(try await cluster.leases(a).renew(old) == false)
        #expect(try await cluster.leases(b).renew(new))
        let lost = try await cluster.leases(b).renew([old, new])
        #expect(lost == [old])
        #expect(try await cluster.leases(b).holder(of: "counter/x")?.node == "node-b")
        await cluster.stop()
    }

    @Test func releaseIsCompareAndDelete() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let b = cluster.options("node-b")
        guard case .acquired(let lease) = try await cluster.leases(a).acquire("counter/x") else {
            Issue.record("the lease was not free")
            return
        }
        let stale = Lease(address: "counter/x", node: "node-a", generation: lease.generation + 7)
        #expect(try await cluster.leases(a).release(stale) == false)
        #expect(try await cluster.leases(a).holder(of: "counter/x")?.generation == lease.generation)
        #expect(try await cluster.leases(a).release(lease))
        #expect(try await cluster.leases(a).holder(of: "counter/x") == nil)
        let next = try await cluster.leases(b).acquire("counter/x")
        #expect(next == .acquired(Lease(address: "counter/x", node: "node-b", generation: lease.generation + 1, line: lease.line)))
        await cluster.stop()
    }

    @Test func heartbeatRenewsHeldLeasesAndReportsLostOnes() async throws {
        let cluster = try await ClusterFixture.start()
        let a = cluster.options("node-a")
        let b = cluster.options("node-b")
        guard case .acquired(let kept) = try await cluster.leases(a).acquire("counter/kept"),
              case .acquired(let taken) = try await cluster.leases(a).acquire("counter/taken")
        else {
            Issue.record("the leases were not free")
            return
        }
        let lost = Recorder<Lease>()
        let heartbeat = ClusterHeartbeat(
            registry: cluster.registry(a), leases: cluster.leases(a), options: a, logger: RedisFixture.logger
        ) { lost.append($0) }
        heartbeat.hold(kept)
        heartbeat.hold(taken)
        _ = try await cluster.client.send(["PEXPIRE", "rh:{counter/kept}:lease", 15_000])
        _ = try await cluster.client.send(["DEL", "rh:{counter/taken}:lease"])
        guard case .acquired = try await cluster.leases(b).acquire("counter/taken") else {
            Issue.record("node-b could not take the deleted lease")
            return
        }
        await heartbeat.beat()
        #expect(lost.all == [taken])
        #expect(heartbeat.heldLeases == [kept])
        #expect(try #require(try await cluster.leases(a).holder(of: "counter/kept")?.remaining) > .seconds(16))
        #expect(try await cluster.registry(b).isAlive("node-a"))
        await cluster.stop()
    }
}
