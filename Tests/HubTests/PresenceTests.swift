import ReactorHubAuth
import Foundation
import ReactorHubEngine
import ReactorHubJSON
import TestSupport
import Testing

/// PROTOCOL.md "Presence", in memory: set and ack, the map in snapshots and `resumed`,
/// broadcasts of joins and leaves, clearing, and the limits.
@Suite("Presence")
struct PresenceTests {
    /// The next `presence` broadcast, skipping other frames.
    func nextPresence(_ client: ProtocolClient) async throws -> JSONValue {
        while true {
            let message = try await client.next()
            if message["type"] == "presence" { return message }
        }
    }

    /// The next message that is not a `presence` broadcast.
    func nextReply(_ client: ProtocolClient) async throws -> JSONValue {
        while true {
            let message = try await client.next()
            if message["type"] != "presence" { return message }
        }
    }

    /// Joins, skipping presence frames still arriving for earlier joins.
    func rejoin(_ client: ProtocolClient, _ address: String, ref: Int) async throws {
        try await client.send(#"{"type":"join","reactor":"\#(address)","ref":\#(ref)}"#)
        while try await client.next()["type"] != "snapshot" {}
    }

    @Test func aSetPresenceIsAckedBroadcastAndInLaterSnapshots() async throws {
        try await withHub { _, server in
            let ann = try await server.connect()
            let bob = try await server.connect()
            try await ann.join("doc/room")
            try await bob.join("doc/room")
            try await ann.send(#"{"type":"presence","reactor":"doc/room","state":{"cursor":3},"ref":"p1"}"#)
            #expect(try await ann.next() == .object(["type": "ack", "reactor": "doc/room", "ref": "p1", "version": 0, "applied": 0]))
            let broadcast = try await nextPresence(bob)
            #expect(broadcast == .object([
                "type": "presence", "reactor": "doc/room",
                "joins": .object([.init(ann.session): .object(["user": .null, "state": .object(["cursor": 3])])]),
                "leaves": .array([]),
            ]))
            #expect(try await nextPresence(ann) == broadcast)  // every subscriber, the setter too
            let carl = try await server.connect()
            let snapshot = try await carl.join("doc/room")
            #expect(snapshot["presence"] == .object([.init(ann.session): .object(["user": .null, "state": .object(["cursor": 3])])]))
        }
    }

    @Test func nullClearsAndLeavingOrClosingIsBroadcastAsALeave() async throws {
        try await withHub { _, server in
            let ann = try await server.connect()
            let bob = try await server.connect()
            let watcher = try await server.connect()
            for client in [ann, bob, watcher] { try await client.join("doc/leaves") }
            try await ann.send(#"{"type":"presence","reactor":"doc/leaves","state":{"typing":true}}"#)
            try await bob.send(#"{"type":"presence","reactor":"doc/leaves","state":{"typing":false}}"#)
            var present: Set<String> = []
            while present.count < 2 {
                let frame = try await nextPresence(watcher)
                present.formUnion(frame["joins"]?.objectValue?.keys ?? [])
            }
            #expect(present == [ann.session, bob.session])
            try await ann.send(#"{"type":"presence","reactor":"doc/leaves","state":null}"#)
            #expect(try await nextPresence(watcher)["leaves"] == .array([.string(ann.session)]))
            try await bob.send(#"{"type":"leave","reactor":"doc/leaves","ref":1}"#)
            #expect(try await nextPresence(watcher)["leaves"] == .array([.string(bob.session)]))
            try await rejoin(bob, "doc/leaves", ref: 2)
            try await bob.send(#"{"type":"presence","reactor":"doc/leaves","state":{"back":1}}"#)
            #expect(try await nextPresence(watcher)["joins"]?.objectValue?.keys.map { $0 } == [bob.session])
            await bob.abort()
            #expect(try await nextPresence(watcher)["leaves"] == .array([.string(bob.session)]))
            let fresh = try await server.connect()
            #expect(try await fresh.join("doc/leaves")["presence"] == .object([:]))
        }
    }

    @Test func refusalsChangeNothingAndAreNotBroadcast() async throws {
        try await withHub(configure: { $0.presenceMaxBytes = 32 }) { _, server in
            let ann = try await server.connect()
            let watcher = try await server.connect()
            try await watcher.join("doc/refusals")
            try await ann.send(#"{"type":"presence","reactor":"doc/refusals","state":{"a":1},"ref":1}"#)
            #expect(try await ann.next()["code"] == "not_joined")
            try await ann.join("doc/refusals", ref: 2)
            try await ann.send(#"{"type":"presence","reactor":"doc/refusals","state":{"text":"\#(String(repeating: "x", count: 40))"},"ref":3}"#)
            let big = try await ann.next()
            #expect(big["code"] == "bad_request")
            #expect(big["message"]?.stringValue?.contains("presence.maxBytes") == true)
            try await ann.send(#"{"type":"presence","reactor":"doc/refusals","state":[1,2],"ref":4}"#)
            #expect(try await ann.next()["code"] == "bad_request")
            try await ann.pingPong()
            await watcher.expectSilence()
            let snapshot = try await watcher.join("doc/refusals", ref: 5)
            #expect(snapshot["presence"] == .object([:]))
        }
    }

    @Test func pastMaxListedSnapshotsAndBroadcastsCarryTheCountOnly() async throws {
        try await withHub(configure: { $0.presenceMaxListed = 2 }) { _, server in
            let watcher = try await server.connect()
            try await watcher.join("doc/crowd")
            var clients: [ProtocolClient] = []
            for index in 0..<3 {
                let client = try await server.connect()
                try await client.join("doc/crowd")
                try await client.send(#"{"type":"presence","reactor":"doc/crowd","state":{"n":\#(index)},"ref":\#(index)}"#)
                // The others' presence may reach a new member before its own ack (a
                // broadcast scheduled before it joined goes out after its snapshot).
                let reply = try await nextReply(client)
                #expect(reply["type"] == "ack")
                #expect(reply["ref"] == .int(index))
                clients.append(client)
            }
            var last = JSONValue.null
            while last["presenceCount"] != 3 {
                last = try await nextPresence(watcher)
            }
            #expect(last["joins"] == nil && last["leaves"] == nil)
            let snapshot = try await server.connect().join("doc/crowd")
            #expect(snapshot["presenceCount"] == 3)
            #expect(snapshot["presence"] == nil)

            // A state changed while the count did not: no frame. Then back to two: every
            // entry is listed again, so that members can show them.
            try await clients[0].send(#"{"type":"presence","reactor":"doc/crowd","state":{"n":10},"ref":10}"#)
            #expect(try await nextReply(clients[0])["type"] == "ack")
            try await clients[2].send(#"{"type":"presence","reactor":"doc/crowd","state":null,"ref":11}"#)
            #expect(try await nextReply(clients[2])["type"] == "ack")
            let listed = try await nextPresence(watcher)
            #expect(listed == .object([
                "type": "presence", "reactor": "doc/crowd",
                "joins": .object([
                    .init(clients[0].session): .object(["user": .null, "state": .object(["n": 10])]),
                    .init(clients[1].session): .object(["user": .null, "state": .object(["n": 1])]),
                ]),
                "leaves": .array([]),
            ]))
        }
    }

    @Test func presenceUpdatesCountAgainstTheRateLimit() async throws {
        try await withHub(configure: {
            $0.actionsPerSecond = 1
            $0.actionBurst = 3
        }) { _, server in
            let client = try await server.connect()
            try await client.join("doc/rate")
            for n in 1...5 {
                try await client.send(#"{"type":"presence","reactor":"doc/rate","state":{"n":\#(n)},"ref":\#(n)}"#)
            }
            var replies: [String] = []
            while replies.count < 5 {
                let message = try await client.next()
                if message["type"] == "presence" { continue }
                replies.append(message["type"] == "ack" ? "ack" : message["code"]?.stringValue ?? "?")
            }
            #expect(replies == ["ack", "ack", "ack", "rate_limited", "rate_limited"])
        }
    }

    @Test func anEntrysUserIsTheTokensSubject() async throws {
        let secret = Array("presence-secret-presence-secret!".utf8)
        let revocations = RevocationList()
        let policy = AuthPolicy(verifier: JWTIdentityVerifier(verifier: try TokenVerifier(algorithm: .hs256(secret: secret), revocations: revocations), revocations: revocations), anonymousRights: Rights.none)
        let token = try TokenMinter(secret: secret).mint(subject: "alice", read: ["doc/*"], act: [], ttl: .seconds(600), now: Date())
        try await withHub(configure: { $0.auth = policy }) { _, server in
            let alice = try await ProtocolClient(connection: server.inMemory!.connect(query: ["token": token]))
            #expect(alice.hello["user"] == "alice")
            try await alice.join("doc/users")
            try await alice.send(#"{"type":"presence","reactor":"doc/users","state":{"here":true},"ref":1}"#)
            #expect(try await alice.next()["type"] == "ack")
            let frame = try await nextPresence(alice)
            #expect(frame["joins"]?[alice.session]?["user"] == "alice")
        }
    }
}
