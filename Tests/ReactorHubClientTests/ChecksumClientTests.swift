import ReactorHubJSON
import ReactorHubProtocol
@testable import ReactorHubClient
import Testing

/// The Swift client's checksums (`HubClientOptions.checksums`, PROTOCOL.md "Checksums"):
/// every join asks, each sum is checked against the copy held, and a copy that does not
/// match is reported (`mismatches`, `checksumMismatches`) and joined afresh; against a
/// server played by the test, then a real daemon with a frame corrupted on its way.
@Suite struct ChecksumClientTests {
    let sums = StateChecksum()

    func sum(_ state: JSONValue) -> String { sums.sum(of: state) }

    func text(_ value: JSONValue) -> String { FakeConnection.text(value) }

    @Test func aCopyOffTheServersSumIsReportedOnceAndJoinedAfresh() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket) { $0.checksums = true }
        var reports = hub.mismatches.makeAsyncIterator()
        async let joining = hub.join("doc/a")
        let join = try await server.next("join")
        #expect(join["checksums"] == true)
        let first: JSONValue = ["a": 1, "é": [0.5, "x\u{1}"]]
        server.deliver(#"{"type":"snapshot","reactor":"doc/a","ref":\#(text(join["ref"]!)),"epoch":"e1","version":1,"sum":"\#(sum(first))","state":\#(text(first))}"#)
        let doc = try await joining
        // A patch whose sum matches, then one the client applies "wrongly": the server's
        // version 3 has a = 3, what reaches the copy sets a = 30.
        server.deliver(#"{"type":"patch","reactor":"doc/a","version":2,"sum":"\#(sum(["a": 2, "é": [0.5, "x\u{1}"]]))","patch":[{"op":"replace","path":"/a","value":2}]}"#)
        server.deliver(#"{"type":"patch","reactor":"doc/a","version":3,"sum":"\#(sum(["a": 3, "é": [0.5, "x\u{1}"]]))","patch":[{"op":"replace","path":"/a","value":30}]}"#)
        server.deliver(#"{"type":"patch","reactor":"doc/a","version":4,"sum":"\#(sum(["a": 4, "é": [0.5, "x\u{1}"]]))","patch":[{"op":"replace","path":"/a","value":40}]}"#)
        let mismatch = await reports.next()
        #expect(mismatch == ChecksumMismatch(
            reactor: "doc/a", version: 3, expected: sum(["a": 3, "é": [0.5, "x\u{1}"]]), computed: sum(["a": 30, "é": [0.5, "x\u{1}"]])
        ))
        let rejoin = try await server.next("join")
        #expect(rejoin["since"] == nil)
        #expect(rejoin["checksums"] == true)
        let fresh: JSONValue = ["a": 4, "é": [0.5, "x\u{1}"]]
        server.deliver(#"{"type":"snapshot","reactor":"doc/a","ref":\#(text(rejoin["ref"]!)),"epoch":"e1","version":4,"sum":"\#(sum(fresh))","state":\#(text(fresh))}"#)
        #expect(await eventually { doc.currentState == fresh })
        #expect(doc.version == 4)
        // Reported once for that copy (version 4 did not match either, and was not reported).
        #expect(hub.checksumMismatches == 1)
        await hub.close()
        #expect(await reports.next() == nil)
    }

    @Test func aSnapshotOffItsOwnSumIsReportedButNotJoinedAgain() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket) { $0.checksums = true }
        var reports = hub.mismatches.makeAsyncIterator()
        async let joining = hub.join("doc/b")
        let join = try await server.next("join")
        server.deliver(#"{"type":"snapshot","reactor":"doc/b","ref":\#(text(join["ref"]!)),"epoch":"e1","version":7,"sum":"0123456789abcdef","state":{}}"#)
        _ = try await joining
        #expect(await reports.next()?.version == 7)
        #expect(await !server.hasUnread())
        #expect(hub.checksumMismatches == 1)
        await hub.close()
    }

    @Test func withoutTheOptionNothingIsAskedOrChecked() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("doc/c")
        let join = try await server.next("join")
        #expect(join["checksums"] == nil)
        server.deliver(#"{"type":"snapshot","reactor":"doc/c","ref":\#(text(join["ref"]!)),"epoch":"e1","version":1,"sum":"0123456789abcdef","state":{}}"#)
        _ = try await joining
        #expect(await !server.hasUnread())
        #expect(hub.checksumMismatches == 0)
        await hub.close()
    }

    @Test(.enabled(if: DaemonProcess.isAvailable, "needs the reactorhub binary (swift build --product reactorhub)"))
    func aPatchCorruptedOnItsWayIsFoundAndTheClientConvergesWithTheDaemon() async throws {
        let daemon = try await DaemonProcess.start()
        defer { daemon.kill() }
        let proxy = try LatencyProxy(targetPort: daemon.port)
        defer { proxy.stop() }
        var options = HubClientOptions()
        options.checksums = true
        let checked = try await HubClient.connect(proxy.url, options: options, logger: clientTestLogger)
        let writer = try await HubClient.connect(daemon.url, logger: clientTestLogger)
        let address = "doc/t\(UInt32.random(in: 0...UInt32.max))"
        let doc = try await checked.join(address)
        let other = try await writer.join(address)
        var reports = checked.mismatches.makeAsyncIterator()
        var states = doc.states(bufferingNewest: 16).makeAsyncIterator()
        proxy.corrupt(#""value":"right""#, with: #""value":"wrong""#)
        _ = try await other.send(["type": "set", "path": "/word", "value": "right"])
        let mismatch = await reports.next()
        #expect(mismatch?.reactor == address)
        #expect(mismatch?.version == 1)
        #expect(mismatch?.computed == sum(["word": "wrong"]))
        #expect(mismatch?.expected == sum(["word": "right"]))
        while let state = await states.next(), state != ["word": "right"] {}
        #expect(doc.currentState == ["word": "right"])
        #expect(checked.checksumMismatches == 1)
        #expect(proxy.count(.up, type: "join") == 2)
        await checked.close()
        await writer.close()
    }
}
