import ReactorHubEngine
import ReactorHubJSON
import TestSupport
import Testing

/// The replies of a burst go to their senders together, each connection's in order and
/// before the frames of the same burst (one lock of a sender's outbox per burst): what
/// PROTOCOL.md's "Acks" promises still holds when several senders' actions share bursts.
@Suite struct BurstRepliesTests {
    /// Two senders (the replies of a burst kept in a short list), and twelve (past eight,
    /// found through an index).
    @Test(arguments: [(TestTransport.inMemory, 2, 150), (.overTheWire, 2, 150), (.inMemory, 12, 25), (.overTheWire, 12, 25)])
    func sendersGetTheirAcksInOrderEachBeforeThePatchThatCarriesIt(transport: TestTransport, senders: Int, actions: Int) async throws {
        try await withHub(transport: transport) { _, server in
            var clients: [ProtocolClient] = []
            for _ in 0..<senders { clients.append(try await server.connect()) }
            for client in clients {
                let snapshot = try await client.join("doc/bursts")
                #expect(snapshot["type"] == "snapshot")
            }
            // Every sender sends all its actions before anyone reads, so that the instance
            // takes them in bursts that mix the senders.
            for number in 1...actions {
                for (index, client) in clients.enumerated() {
                    try await client.send(
                        #"{"type":"action","reactor":"doc/bursts","action":{"type":"set","path":"/c\#(index)","value":\#(number)},"ref":\#(number)}"#
                    )
                }
            }
            var appliedVersions = [Set<Int>](repeating: [], count: senders)
            for (index, client) in clients.enumerated() {
                var acks = 0
                var newestFrame = 0
                while acks < actions || newestFrame < senders * actions {
                    let message = try await client.next()
                    switch message["type"]?.stringValue {
                    case "ack":
                        acks += 1
                        #expect(message["ref"] == .int(acks), "acks in the order of their actions")
                        let applied = try #require(message["applied"]?.intValue)
                        #expect(message["version"] == .int(applied - 1))
                        // No frame carrying the action's version came before its ack.
                        #expect(applied > newestFrame, "ack \(acks) for version \(applied) after a frame up to \(newestFrame)")
                        appliedVersions[index].insert(applied)
                    case "patch":
                        let version = try #require(message["version"]?.intValue)
                        let base = message["base"]?.intValue ?? version - 1
                        #expect(base == newestFrame, "frames continue each other")
                        newestFrame = version
                    default:
                        Issue.record("unexpected \(message)")
                    }
                }
                #expect(acks == actions)
                #expect(newestFrame == senders * actions)
            }
            // Every version was one action's, of one sender.
            #expect(appliedVersions.allSatisfy { $0.count == actions })
            #expect(appliedVersions.reduce(into: Set<Int>()) { $0.formUnion($1) } == Set(1...(senders * actions)))
            for client in clients { await client.expectSilence() }
        }
    }
}
