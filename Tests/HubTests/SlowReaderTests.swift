import ReactorHubEngine
import ReactorHubJSON
import TestSupport
import Testing

/// The slow-reader policy end to end, in memory: a reader whose socket is full loses
/// queued patches and pulses, gets a fresh snapshot once it reads again, and converges;
/// one that does not even keep its replies is closed with 1013; nobody else is slowed.
@Suite("Slow readers")
struct SlowReaderTests {
    @Test func aReaderThatStoppedReadingIsShedThenResyncedAndConverges() async throws {
        try await withHub(configure: { $0.outboundQueueBytes = 16 * 1024 }) { _, server in
            let writer = try await server.connect()
            let raw = try await server.rawClient()
            let reader = try await ProtocolClient(connection: raw)
            try await writer.join("doc/slow")
            try await reader.join("doc/slow")
            raw.pauseReading(socketCapacity: 2048)
            let count = 600
            for n in 1...count {
                try await writer.send(#"{"type":"action","reactor":"doc/slow","action":{"type":"set","path":"/k\#(n % 40)","value":"\#(String(repeating: "v", count: 60))\#(n)"},"ref":\#(n)}"#)
            }
            var acked = 0
            var finalVersion = 0
            while acked < count || finalVersion < count {
                let message = try await writer.next()
                if message["type"] == "ack" { acked += 1 }
                if message["type"] == "patch" { finalVersion = try #require(message["version"]?.intValue) }
            }
            raw.resumeReading()
            // The reader applies what it is sent; a snapshot replaces its copy.
            var state: JSONValue = .object([:])
            var version = 0
            var snapshots = 0
            var patchesApplied = 0
            while version < count {
                let message = try await reader.next()
                switch message["type"]?.stringValue {
                case "snapshot":
                    state = try #require(message["state"])
                    version = try #require(message["version"]?.intValue)
                    snapshots += 1
                case "patch":
                    let base = message["base"]?.intValue ?? (message["version"]!.intValue! - 1)
                    #expect(base == version)
                    state = try JSONPatch.apply(try #require(message["patch"]), to: state)
                    version = try #require(message["version"]?.intValue)
                    patchesApplied += 1
                default:
                    break
                }
            }
            #expect(snapshots == 1)
            #expect(patchesApplied < count)
            let fresh = try await writer.join("doc/slow", ref: 99)
            #expect(state == fresh["state"])
            #expect(fresh["version"] == .int(count))
        }
    }

    /// A client that stops reading and floods cheap messages fills its outbox with
    /// replies; past four times the limit it is closed with 1013. Another client's pings
    /// meanwhile all come back, in order.
    @Test func aFloodOfRepliesToANonReaderEndsIn1013AndOthersKeepTheirOrder() async throws {
        try await withHub(configure: { $0.outboundQueueBytes = 16 * 1024 }) { _, server in
            let raw = try await server.rawClient()
            let attacker = try await ProtocolClient(connection: raw)
            let other = try await server.connect()
            raw.pauseReading(socketCapacity: 4096)
            for n in 0..<6000 {
                try await attacker.send(#"{"type":"ping","ref":\#(n)}"#)
                if n % 60 == 0 {
                    try await other.send(#"{"type":"ping","ref":\#(n / 60)}"#)
                }
            }
            var refs: [Int] = []
            while refs.count < 100 {
                let message = try await other.next()
                #expect(message["type"] == "pong")
                refs.append(try #require(message["ref"]?.intValue))
            }
            #expect(refs == Array(0..<100))
            #expect(try await raw.receiveClose().code.rawValue == 1013)
        }
    }
}
