import ReactorHubJSON
@testable import ReactorHubClient
import TestSupport
import Testing

/// `RemoteReactor.states`: the latest state only, for a reader that falls behind or never
/// reads; more when asked.
@Suite(.serialized) struct StateStreamTests {
    func joinedDoc(_ socket: FakeSocket) async throws -> (HubClient, FakeConnection, RemoteReactor<JSONValue, JSONValue>) {
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("doc/a")
        try await server.answerJoin("doc/a", state: #"{"blob":"","n":0}"#, version: 0)
        return (hub, server, try await joining)
    }

    /// Sends patches `from...to`, each replacing the blob with `size` new bytes, in
    /// batches the client has applied before the next (so nothing piles up in the socket).
    func pump(_ server: FakeConnection, _ doc: RemoteReactor<JSONValue, JSONValue>, from: Int, to: Int, size: Int) async {
        for version in from...to {
            let blob = String(repeating: Character(UnicodeScalar(UInt8(97 + version % 26))), count: size - 8) + String(format: "%08d", version)
            server.patch("doc/a", version: version, #"[{"op":"replace","path":"/blob","value":"\#(blob)"},{"op":"replace","path":"/n","value":\#(version)}]"#)
            if version % 50 == 0 {
                _ = await eventually(.seconds(60)) { doc.version == version }
            }
        }
        _ = await eventually(.seconds(60)) { doc.version == to }
    }

    @Test func aStreamThatIsNeverReadHoldsOneStateAndMemoryStaysFlat() async throws {
        let socket = FakeSocket()
        let (hub, server, doc) = try await joinedDoc(socket)
        let states = doc.states                     // subscribed, never read
        #expect(doc.publisher.slotCount == 1)
        await pump(server, doc, from: 1, to: 300, size: 20_000)
        let before = ResidentMemory.current()
        // 200 MB of distinct states: an unbounded buffer would hold them all (the resident
        // memory then grows by about as much); other suites running in the same process
        // meanwhile add their own (48 MiB was seen on a busy CI run), hence the margin.
        await pump(server, doc, from: 301, to: 5300, size: 40_000)
        let grown = ResidentMemory.current() - before
        #expect(doc.version == 5300)
        #expect(states.buffered == 1)
        #expect(grown < 120 << 20, "resident memory grew by \(grown >> 20) MiB")

        var reader = states.makeAsyncIterator()
        #expect(await reader.next()?["n"] == 5300)  // the latest, nothing older
        _ = states
        await hub.close()
    }

    @Test func aReaderThatFallsBehindSkipsToTheLatestState() async throws {
        let socket = FakeSocket()
        let (hub, server, doc) = try await joinedDoc(socket)
        var reader = doc.states.makeAsyncIterator()
        #expect(await reader.next()?["n"] == 0)
        await pump(server, doc, from: 1, to: 100, size: 16)
        #expect(await reader.next()?["n"] == 100)
        server.patch("doc/a", version: 101, #"[{"op":"replace","path":"/n","value":101}]"#)
        #expect(await reader.next()?["n"] == 101)
        await hub.close()
    }

    @Test func aBufferedStreamKeepsTheNewestStatesUpToItsLimit() async throws {
        let socket = FakeSocket()
        let (hub, server, doc) = try await joinedDoc(socket)
        let states = doc.states(bufferingNewest: 5)
        await pump(server, doc, from: 1, to: 10, size: 16)
        #expect(states.buffered == 5)
        var reader = states.makeAsyncIterator()
        var read: [JSONValue?] = []
        for _ in 0..<5 { read.append(await reader.next()?["n"]) }
        #expect(read == [6, 7, 8, 9, 10])
        await hub.close()
    }

    @Test func aReleasedStreamUnsubscribes() async throws {
        let socket = FakeSocket()
        let (hub, _, doc) = try await joinedDoc(socket)
        do {
            let states = doc.revisions(bufferingNewest: 3)
            #expect(states.buffered == 1)
            #expect(doc.publisher.slotCount == 1)
        }
        #expect(doc.publisher.slotCount == 0)
        await hub.close()
    }
}
