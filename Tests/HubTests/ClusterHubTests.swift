@testable import ReactorHubRedis
@testable import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLogging
import ReactorHubMetrics
import TestSupport
import Testing
import ReactorHubWebSocketServer

/// Several hubs as nodes of one cluster on a Redis of the test's own (in-process, in-memory
/// transports): the owner/follower paths of `ReplicaInstance` and `OwnedRuntime`, also
/// under the thread sanitizer.
@Suite("Hubs sharing reactors through Redis", .serialized)
struct ClusterHubTests {
    struct Node {
        let hub: Hub
        let cluster: ClusterNode
        let transport: InMemoryTransport
        let running: Task<Void, any Error>

        func connect() async throws -> ProtocolClient {
            try await ProtocolClient(connection: transport.connect())
        }
    }

    /// A lease long enough that a loaded machine (or the thread sanitizer) never lets one
    /// lapse by accident: ownership moves only where a test moves it.
    /// `count` nodes on a Redis of their own, or on the master `directory` names (the test
    /// moves it).
    private func withNodes(
        _ count: Int, lease: Duration = .seconds(10), on directory: MasterDirectory? = nil, logger: Logger = testLogger,
        _ body: ([Node]) async throws -> Void
    ) async throws {
        let redis = directory == nil ? try await RedisServer.start() : nil
        let endpoint = directory?.target?.endpoint ?? RedisEndpoint(host: redis?.host ?? "", port: redis?.port ?? 0)
        let prefix = "t\(UInt32.random(in: 0...UInt32.max))"
        var nodes: [Node] = []
        for index in 0..<count {
            var options = ClusterOptions(nodeID: "h\(index)")
            options.keyPrefix = prefix
            options.lease = lease
            let cluster = ClusterNode(
                options: options, redis: RedisConfiguration(host: endpoint.host, port: endpoint.port), sentinel: nil, directory: directory,
                logger: logger
            )
            cluster.start()
            let running = Task { try await cluster.run() }
            #expect(await cluster.waitUntilConnected(timeout: .seconds(60)))
            var configuration = HubConfiguration()
            configuration.serverName = "reactorhub/0.1.0"
            configuration.actionsPerSecond = 100_000
            configuration.actionBurst = 100_000
            let transport = InMemoryTransport()
            let hub = Hub(configuration: configuration, registry: testRegistry(), transport: transport, cluster: cluster, logger: logger)
            try hub.start()
            nodes.append(Node(hub: hub, cluster: cluster, transport: transport, running: running))
        }
        do {
            try await body(nodes)
        } catch {
            await stop(nodes)
            await redis?.stop()
            throw error
        }
        await stop(nodes)
        await redis?.stop()
    }

    private func stop(_ nodes: [Node]) async {
        for node in nodes {
            await stop(node)
        }
    }

    private func stop(_ node: Node) async {
        await node.hub.shutdown(grace: .milliseconds(500))
        node.cluster.triggerGracefulShutdown()
        _ = try? await node.running.value
    }

    /// The next message that is not a pulse.
    private func nextText(_ client: ProtocolClient) async throws -> String {
        try await client.nextText(timeout: 60)
    }

    @Test func anActionThroughAFollowerIsAckedBeforeItsPatchAndEveryNodeGetsTheSameFrame() async throws {
        try await withNodes(2) { nodes in
            let owner = try await nodes[0].connect()
            #expect(owner.hello["node"] == "h0")
            let joined = try await owner.join("doc/c")
            #expect(joined["version"] == 0)
            let follower = try await nodes[1].connect()
            #expect(follower.hello["node"] == "h1")
            let snapshot = try await follower.join("doc/c")
            #expect(snapshot["epoch"] == joined["epoch"])
            #expect(nodes[0].cluster.render(text: true).contains("reactorhub_cluster_owned_instances 1"))
            #expect(nodes[1].cluster.render(text: true).contains("reactorhub_cluster_owned_instances 0"))

            try await follower.send(#"{"type":"action","reactor":"doc/c","action":{"type":"set","path":"/a","value":1},"ref":"f1"}"#)
            let first = try await nextText(follower)
            #expect(first == #"{"type":"ack","reactor":"doc/c","ref":"f1","version":0,"applied":1}"#)
            let patch = #"{"type":"patch","reactor":"doc/c","version":1,"patch":[{"op":"add","path":"/a","value":1}]}"#
            #expect(try await nextText(follower) == patch)
            #expect(try await nextText(owner) == patch)

            try await owner.send(#"{"type":"action","reactor":"doc/c","action":{"type":"emit","name":"hi"},"ref":"o1"}"#)
            #expect(try await nextText(owner) == #"{"type":"ack","reactor":"doc/c","ref":"o1","version":1,"applied":1}"#)
            let pulse = #"{"type":"pulse","reactor":"doc/c","version":1,"name":"event","value":{"name":"hi","value":null}}"#
            #expect(try await nextText(owner) == pulse)
            #expect(try await nextText(follower) == pulse)
            #expect(nodes[1].cluster.render(text: true).contains("reactorhub_cluster_forwarded_actions_total 1"))

            // An id answered through one node is a duplicate through the other.
            let add = #"{"type":"action","reactor":"doc/c","action":{"type":"set","path":"/b","value":2},"id":"same","ref":"#
            try await follower.send(add + "1}")
            #expect(try await nextText(follower) == #"{"type":"ack","reactor":"doc/c","ref":1,"version":1,"applied":2}"#)
            #expect(try await follower.next(timeout: 60)["version"] == 2)
            #expect(try await owner.next(timeout: 60)["version"] == 2)
            try await owner.send(add + "2}")
            #expect(try await nextText(owner) == #"{"type":"ack","reactor":"doc/c","ref":2,"version":1,"applied":2,"duplicate":true}"#)
            // An action its reactor refuses: the error comes back through the log.
            try await follower.send(#"{"type":"action","reactor":"doc/c","action":{"type":"remove","path":"/nope"},"ref":"bad"}"#)
            let refused = try await follower.next(timeout: 60)
            #expect(refused["type"] == "error")
            #expect(refused["code"] == "invalid_action")
            await follower.expectSilence()
            await owner.expectSilence()
        }
    }

    /// The next `presence` broadcast, skipping other frames.
    private func nextPresence(_ client: ProtocolClient) async throws -> JSONValue {
        while true {
            let message = try await client.next(timeout: 60)
            if message["type"] == "presence" { return message }
        }
    }

    @Test func presenceSetOnOneNodeIsInTheOtherNodesSnapshotAndBroadcastsAndLeavesWithItsConnection() async throws {
        try await withNodes(2) { nodes in
            let ann = try await nodes[0].connect()
            #expect(ann.session.hasPrefix("h0:c"))  // unique across the nodes
            _ = try await ann.join("doc/p")
            // A ref written as 1E2 comes back as 1E2, here and through the other node.
            try await ann.send(#"{"type":"presence","reactor":"doc/p","state":{"cursor":3},"ref":1E2}"#)
            #expect(try await nextText(ann) == #"{"type":"ack","reactor":"doc/p","ref":1E2,"version":0,"applied":0}"#)
            let annEntry: JSONValue = .object(["user": .null, "state": .object(["cursor": 3])])
            #expect(try await nextPresence(ann)["joins"] == .object([.init(ann.session): annEntry]))
            // Written to Redis (asynchronously): then a node joining the instance reads it.
            while try await nodes[1].cluster.presence.entries(of: "doc/p")["h0"]?.count != 1 {
                try await Task.sleep(for: .milliseconds(20))
            }
            let bob = try await nodes[1].connect()
            #expect(bob.session.hasPrefix("h1:c"))
            let snapshot = try await bob.join("doc/p")
            #expect(snapshot["presence"] == .object([.init(ann.session): annEntry]))

            try await bob.send(#"{"type":"action","reactor":"doc/p","action":{"type":"set","path":"/a","value":1},"ref":1E2}"#)
            #expect(try await nextText(bob) == #"{"type":"ack","reactor":"doc/p","ref":1E2,"version":0,"applied":1}"#)
            try await bob.send(#"{"type":"presence","reactor":"doc/p","state":{"cursor":9}}"#)
            let bobEntry: JSONValue = .object(["user": .null, "state": .object(["cursor": 9])])
            let joined = try await nextPresence(ann)
            #expect(joined == .object(["type": "presence", "reactor": "doc/p", "joins": .object([.init(bob.session): bobEntry]), "leaves": .array([])]))
            #expect(try await nextPresence(bob) == joined)

            // A changed state is a join of the same session, on the other node too.
            try await ann.send(#"{"type":"presence","reactor":"doc/p","state":{"cursor":4}}"#)
            let moved = try await nextPresence(bob)
            #expect(moved["joins"] == .object([.init(ann.session): .object(["user": .null, "state": .object(["cursor": 4])])]))
            #expect(moved["leaves"] == .array([]))

            // Closing bob's connection is a leave on ann's node.
            let bobSession = bob.session
            await bob.connection.abort()
            var left = try await nextPresence(ann)
            while left["joins"] != .object([:]) { left = try await nextPresence(ann) }  // ann's own move first
            #expect(left["leaves"] == .array([.string(bobSession)]))
            while try await nodes[0].cluster.presence.entries(of: "doc/p")["h1"] != nil {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    @Test func theDrainHandsTheLeaseOverAndAnotherNodeContinuesTheEpoch() async throws {
        try await withNodes(2, lease: .seconds(600)) { nodes in
            let owner = try await nodes[0].connect()
            let joined = try await owner.join("doc/h")
            let follower = try await nodes[1].connect()
            try await follower.join("doc/h")
            try await owner.send(#"{"type":"action","reactor":"doc/h","action":{"type":"set","path":"/n","value":1},"id":"kept","ref":1}"#)
            #expect(try await owner.next(timeout: 60)["type"] == "ack")
            #expect(try await follower.next(timeout: 60)["version"] == 1)
            await stop(nodes[0])
            // With a 600 s lease, only the release at the drain lets the follower take over
            // before the deadline below (generous: a loaded machine is slow, not 600 s slow).
            let started = ContinuousClock.now
            var ref = 0
            while true {
                ref += 1
                try await follower.send(#"{"type":"action","reactor":"doc/h","action":{"type":"set","path":"/n","value":2},"ref":\#(ref)}"#)
                let reply = try await follower.next(timeout: 60)
                if reply["type"] == "ack" { break }
                #expect(reply["code"] == "overloaded")
                // Long before the lease could lapse: the release, not the lapse, let it in.
                try #require(ContinuousClock.now - started < .seconds(120), "still refused: \(reply)")
                try await Task.sleep(for: .milliseconds(50))
            }
            let patch = try await follower.next(timeout: 60)
            #expect(patch["version"] == 2)
            // The new owner read back the ids the former one remembered.
            try await follower.send(#"{"type":"action","reactor":"doc/h","action":{"type":"set","path":"/n","value":1},"id":"kept","ref":"again"}"#)
            let duplicate = try await follower.nextText(timeout: 60)
            #expect(duplicate == #"{"type":"ack","reactor":"doc/h","ref":"again","version":0,"applied":1,"duplicate":true}"#)
            await follower.expectSilence()
            #expect(nodes[1].cluster.render(text: true).contains("reactorhub_cluster_owned_instances 1"))
            let late = try await nodes[1].connect()
            let snapshot = try await late.join("doc/h")
            #expect(snapshot["epoch"] == joined["epoch"])
            #expect(snapshot["state"] == .object(["n": 2]))
        }
    }

    @Test func aReplicaPromotedWithoutTheLastCommitsGivesEveryClientANewEpochNeverAFork() async throws {
        // Quiet: every link reports the master's death at once.
        var quiet = testLogger
        quiet.logLevel = .error
        let master = try await RedisServer.start()
        let replica = try await RedisServer.start(replicaOf: master)
        let directory = MasterDirectory.fixed(RedisEndpoint(host: master.host, port: master.port))
        let admin = RedisClient(
            configuration: RedisConfiguration(host: master.host, port: master.port), directory: .fixed(
                RedisEndpoint(host: master.host, port: master.port), expectsMaster: false
            ), logger: quiet
        )
        admin.start()
        try await withNodes(2, on: directory, logger: quiet) { nodes in
            let owner = try await nodes[0].connect()
            let follower = try await nodes[1].connect()
            let joined = try await owner.join("doc/f")
            #expect(try await follower.join("doc/f")["epoch"] == joined["epoch"])
            // Every patch each client got, by epoch and version: two different ones for one
            // version would be a fork.
            var patches: [String: Set<String>] = [:]
            var epochs = ["owner": joined["epoch"]?.stringValue ?? "", "follower": joined["epoch"]?.stringValue ?? ""]
            var snapshots: [String: JSONValue] = [:]
            var versions: [String: Int] = [:]
            var last: JSONValue?
            func act(_ client: ProtocolClient, _ path: String, ref: String) async throws {
                try await client.send(#"{"type":"action","reactor":"doc/f","action":{"type":"set","path":"/\#(path)","value":1},"ref":"\#(ref)"}"#)
            }
            func receive(_ client: ProtocolClient, _ name: String, until done: (JSONValue) -> Bool) async throws {
                while true {
                    let message = try await client.next(timeout: 60)
                    last = message
                    if message["type"] == "snapshot" {
                        snapshots[name] = message
                        epochs[name] = message["epoch"]?.stringValue
                        versions[name] = message["version"]?.intValue
                    }
                    if message["type"] == "patch" {
                        versions[name] = message["version"]?.intValue
                        patches["\(epochs[name] ?? "")/\(message["version"]?.intValue ?? -1)", default: []].insert(message.description)
                    }
                    if done(message) { return }
                }
            }
            for (index, path) in ["a", "b", "c"].enumerated() {
                try await act(owner, path, ref: path)
                try await receive(owner, "owner") { $0["version"]?.intValue == index + 1 && $0["type"] == "patch" }
                try await receive(follower, "follower") { $0["version"]?.intValue == index + 1 && $0["type"] == "patch" }
            }
            // The replica has versions 1 to 3, then hears nothing more.
            try await waitUntilReplicated(admin)
            replica.pause()
            _ = try await admin.send(["CLIENT", "KILL", "TYPE", "replica"])
            for (index, path) in ["d", "e"].enumerated() {
                try await act(owner, path, ref: path)
                try await receive(owner, "owner") { $0["version"]?.intValue == index + 4 && $0["type"] == "patch" }
                try await receive(follower, "follower") { $0["version"]?.intValue == index + 4 && $0["type"] == "patch" }
            }
            // The master dies; the replica is promoted without versions 4 and 5.
            await master.kill()
            replica.resume()
            let promoter = RedisClient(
                configuration: RedisConfiguration(host: replica.host, port: replica.port), directory: .fixed(
                    RedisEndpoint(host: replica.host, port: replica.port), expectsMaster: false
                ), logger: quiet
            )
            promoter.start()
            while (try? await promoter.send(["REPLICAOF", "NO", "ONE"])) == nil {
                try await Task.sleep(for: .milliseconds(20))
            }
            directory.name(RedisEndpoint(host: replica.host, port: replica.port))

            // An action through the follower, resent while it is refused: the new epoch takes it.
            var acked: JSONValue?
            var attempt = 0
            while acked == nil {
                attempt += 1
                try await act(follower, "after", ref: "r\(attempt)")
                try await receive(follower, "follower") { $0["ref"]?.stringValue == "r\(attempt)" }
                let reply = try #require(last)
                if reply["type"] == "ack" { acked = reply } else { #expect(reply["code"] == "overloaded") }
            }
            // Each client gets the new epoch, as a snapshot of what the new master holds
            // (versions 1 to 3), then the action's change; or with the change already in it.
            for (name, client) in [("owner", owner), ("follower", follower)] {
                if epochs[name] == joined["epoch"]?.stringValue || versions[name] != 4 {
                    try await receive(client, name) { _ in epochs[name] != joined["epoch"]?.stringValue && versions[name] == 4 }
                }
                let snapshot = try #require(snapshots[name])
                #expect(snapshot["epoch"] != joined["epoch"], "\(name)")
                #expect(snapshot["version"] == 3 || snapshot["version"] == 4, "\(name)")
                #expect(snapshot["state"] == (snapshot["version"] == 3 ? ["a": 1, "b": 1, "c": 1] : ["a": 1, "b": 1, "c": 1, "after": 1]), "\(name)")
            }
            #expect(snapshots["owner"]?["epoch"] == snapshots["follower"]?["epoch"])
            // No version was ever sent with two different patches.
            #expect(patches.values.allSatisfy { $0.count == 1 }, "\(patches)")
            await promoter.shutdown()
        }
        await admin.shutdown()
        await replica.stop()
    }

    /// Waits until the master's replica has every write so far.
    private func waitUntilReplicated(_ admin: RedisClient) async throws {
        while try await admin.pipeline([["PUBLISH", "x", ""], ["WAIT", 1, 200]])[1].integer ?? 0 < 1 {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension ClusterNode {
    /// The cluster's metric families as text (tests).
    func render(text: Bool) -> String {
        var out = Exposition()
        render(into: &out)
        return out.text
    }
}
