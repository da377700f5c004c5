import Foundation
import ReactorHubJSON
import ReactorHubClient
import ReactorHubKinds
import Testing

/// Presence through the Swift client against a real daemon: `setPresence`, `others`,
/// and the leave when the other client goes away.
@Suite(.serialized, .enabled(if: DaemonProcess.isAvailable, "needs the reactorhub binary (swift build --product reactorhub)"))
struct LivePresenceTests {
    struct Cursor: Codable, Sendable, Equatable {
        var line: Int
    }

    /// Waits for a presence view that satisfies `condition`, with a generous deadline.
    func view(of reactor: RemoteReactor<JSONValue, JSONValue>, _ condition: (PresenceView) -> Bool) async -> PresenceView? {
        let stream = reactor.presenceUpdates
        let deadline = ContinuousClock.now + .seconds(60)
        for await view in stream {
            if condition(view) { return view }
            if ContinuousClock.now > deadline { return nil }
        }
        return nil
    }

    @Test func othersSeeAPresenceSetAndItsLeave() async throws {
        let daemon = try await DaemonProcess.start()
        defer { daemon.kill() }
        let address = "doc/presence\(UInt32.random(in: 0...UInt32.max))"
        let ann = try await HubClient.connect(daemon.url, logger: clientTestLogger)
        let bob = try await HubClient.connect(daemon.url, logger: clientTestLogger)
        let annDoc = try await ann.join(address)
        let bobDoc = try await bob.join(address)
        try await annDoc.setPresence(Cursor(line: 7))
        let seen = await view(of: bobDoc) { $0.entries.count == 1 }
        let annSession = try #require(ann.server?.session)
        #expect(seen?.entries[annSession]?.state == .object(["line": 7]))
        #expect(seen?.entries[annSession]?.user == nil)
        #expect(bobDoc.others.map(\.session) == [annSession])
        #expect(annDoc.others.isEmpty)  // its own entry is not among the others
        await ann.close()
        let after = await view(of: bobDoc) { $0.entries.isEmpty }
        #expect(after?.total == 0)
        await bob.close()
    }
}
