import ReactorHubEngine
import ReactorHubJSON
import ReactorHubLocking
import ReactorHubProtocol
import TestSupport
import Testing

/// PROTOCOL.md "Checksums (opt-in)": `sum` on the snapshot, `resumed` and patch frames of
/// a join that asked, computed once per version and only while someone asks.
@Suite("Checksums")
struct ChecksumTests {
    /// A checksum that counts the digests it computes.
    final class CountingChecksum: Sendable {
        let digests = Locked(0)
        var checksum: StateChecksum {
            StateChecksum { [digests] bytes in
                digests.withLock { $0 += 1 }
                return SHA256.digest(bytes)
            }
        }
        var count: Int { digests.withLock { $0 } }
    }

    let sums = StateChecksum()

    func join(_ client: ProtocolClient, _ address: String, checksums: String?, ref: String = "j", since: String = "") async throws -> JSONValue {
        let option = checksums.map { #","checksums":\#($0)"# } ?? ""
        try await client.send(#"{"type":"join","reactor":"\#(address)","ref":"\#(ref)"\#(option)\#(since)}"#)
        return try await client.next()
    }

    func set(_ client: ProtocolClient, _ address: String, _ path: String, _ value: String, ref: String) async throws {
        try await client.send(#"{"type":"action","reactor":"\#(address)","action":{"type":"set","path":"\#(path)","value":\#(value)},"ref":"\#(ref)"}"#)
    }

    /// The next patch, skipping the ack.
    func patch(_ client: ProtocolClient) async throws -> JSONValue {
        while true {
            let message = try await client.next()
            if message["type"] == "patch" { return message }
            #expect(message["type"] == "ack", "expected an ack or a patch, got \(message)")
        }
    }

    @Test func aJoinThatAsksGetsSumsAndTheOthersSeeNone() async throws {
        let counting = CountingChecksum()
        try await withHub(configure: { $0.checksum = counting.checksum }) { _, server in
            let asking = try await server.connect()
            let plain = try await server.connect()
            let snapshot = try await join(asking, "doc/sums", checksums: "true")
            #expect(snapshot["sum"] == .string(sums.sum(of: .object([:]))))
            #expect(snapshot["sum"] == "44136fa355b3678a")
            #expect(try await join(plain, "doc/sums", checksums: nil)["sum"] == nil)
            #expect(counting.count == 1)

            var state: JSONValue = .object([:])
            let values = [
                ("/n", "0.1"), ("/é", #""ünï\u0001\"q\"""#), ("/😀", "[1e21,1e-7,-0.0,5e-324,9007199254740993]"),
                ("/\u{FB33}", #"{"b":1,"a":2.50}"#), ("/n", "1.0"),
            ]
            for (index, (path, value)) in values.enumerated() {
                try await set(asking, "doc/sums", path, value, ref: "s\(index)")
                let summed = try await patch(asking)
                let bare = try await patch(plain)
                state = try JSONPatch.apply(try #require(summed["patch"]), to: state)
                #expect(summed["version"]?.intValue == index + 1)
                #expect(summed["sum"] == .string(sums.sum(of: state)), "version \(index + 1)")
                #expect(bare["sum"] == nil)
                var withoutSum = summed
                if case .object(var object) = withoutSum {
                    object.removeValue(forKey: "sum")
                    withoutSum = .object(object)
                }
                #expect(bare == withoutSum)
            }
            // One digest for the snapshot, then one per version.
            #expect(counting.count == 1 + values.count)
            // `1` and `1.0` hash the same (the state changed as text, not as a number).
            #expect(sums.sum(of: .object(["n": .int(1)])) == sums.sum(of: .object(["n": .double(1.0)])))
        }
    }

    @Test func nothingIsSummedWhileNobodyAsks() async throws {
        let counting = CountingChecksum()
        try await withHub(configure: { $0.checksum = counting.checksum }) { _, server in
            let client = try await server.connect()
            #expect(try await join(client, "doc/quiet", checksums: "false")["sum"] == nil)
            for index in 0..<5 {
                try await set(client, "doc/quiet", "/v", "\(index)", ref: "v\(index)")
                #expect(try await patch(client)["sum"] == nil)
            }
            #expect(counting.count == 0)
        }
    }

    @Test func theLatestJoinsChoiceHolds() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            #expect(try await join(client, "doc/choice", checksums: "true", ref: "a")["sum"] != nil)
            let off = try await join(client, "doc/choice", checksums: "false", ref: "b")
            #expect(off["type"] == "snapshot" && off["sum"] == nil)
            try await set(client, "doc/choice", "/x", "1", ref: "x")
            #expect(try await patch(client)["sum"] == nil)
            let on = try await join(client, "doc/choice", checksums: "true", ref: "c")
            #expect(on["sum"] == .string(sums.sum(of: .object(["x": 1]))))
            try await set(client, "doc/choice", "/y", "2", ref: "y")
            #expect(try await patch(client)["sum"] == .string(sums.sum(of: .object(["x": 1, "y": 2]))))
            let absent = try await join(client, "doc/choice", checksums: nil, ref: "d")
            #expect(absent["sum"] == nil)
        }
    }

    @Test func aResumeThatAsksGetsTheSumsOfTheVersionsItMissed() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            let snapshot = try await join(client, "doc/back", checksums: "true")
            let epoch = try #require(snapshot["epoch"]?.stringValue)
            try await set(client, "doc/back", "/a", "1", ref: "a")
            _ = try await patch(client)
            await client.abort()
            // Versions 2 and 3 while nobody asks: still summed, for the history's length.
            let other = try await server.connect()
            _ = try await join(other, "doc/back", checksums: nil)
            try await set(other, "doc/back", "/b", "2", ref: "b")
            _ = try await patch(other)
            try await set(other, "doc/back", "/c", "3.25", ref: "c")
            _ = try await patch(other)

            let back = try await server.connect()
            let since = #","since":{"epoch":"\#(epoch)","version":1}"#
            let resumed = try await join(back, "doc/back", checksums: "true", since: since)
            #expect(resumed["type"] == "resumed")
            #expect(resumed["sum"] == .string(sums.sum(of: .object(["a": 1]))))
            let second = try await back.next()
            #expect(second["version"] == 2 && second["sum"] == .string(sums.sum(of: .object(["a": 1, "b": 2]))))
            let third = try await back.next()
            #expect(third["version"] == 3 && third["sum"] == .string(sums.sum(of: .object(["a": 1, "b": 2, "c": 3.25]))))
            try await back.pingPong()
        }
    }

    @Test func aResumeOverVersionsNobodySummedGetsASnapshotWithItsSum() async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            let epoch = try #require(try await join(client, "doc/unsummed", checksums: nil)["epoch"]?.stringValue)
            try await set(client, "doc/unsummed", "/a", "1", ref: "a")
            _ = try await patch(client)
            let back = try await server.connect()
            let since = #","since":{"epoch":"\#(epoch)","version":0}"#
            // Without checksums the history serves it; with them it has no sums to give.
            #expect(try await join(back, "doc/unsummed", checksums: nil, ref: "r1", since: since)["type"] == "resumed")
            _ = try await back.next()
            let other = try await server.connect()
            let answer = try await join(other, "doc/unsummed", checksums: "true", ref: "r2", since: since)
            #expect(answer["type"] == "snapshot")
            #expect(answer["sum"] == .string(sums.sum(of: .object(["a": 1]))))
        }
    }

    @Test(arguments: [#""yes""#, "1", "null", "{}"])
    func checksumsMustBeABoolean(value: String) async throws {
        try await withHub { _, server in
            let client = try await server.connect()
            let reply = try await join(client, "doc/bad", checksums: value)
            #expect(reply["type"] == "error")
            #expect(reply["code"] == "bad_request")
            #expect(reply["ref"] == "j")
        }
    }
}
