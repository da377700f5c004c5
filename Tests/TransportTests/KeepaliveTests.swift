import Foundation
import TestSupport
import Testing
@testable import ReactorHubWebSocketServer

@Suite("Keepalive")
struct KeepaliveTests {
    @Test func theRuleMapsSilenceToPingThenDrop() {
        let rule = Keepalive(pingSeconds: 30, timeoutSeconds: 60)
        #expect(rule.step(silence: 0, pinged: false) == .nothing)
        #expect(rule.step(silence: 29_999, pinged: false) == .nothing)
        #expect(rule.step(silence: 30_000, pinged: false) == .ping)
        // One ping per silence: the next sweeps wait for the answer or the drop.
        #expect(rule.step(silence: 45_000, pinged: true) == .nothing)
        #expect(rule.step(silence: 59_999, pinged: true) == .nothing)
        #expect(rule.step(silence: 60_000, pinged: true) == .drop)
        // A sweep that comes late (a loaded machine) drops without pinging first.
        #expect(rule.step(silence: 75_000, pinged: false) == .drop)
    }

    @Test func theClockMovesForward() {
        let first = Keepalive.now()
        usleep(20_000)
        #expect(Keepalive.now() > first)
    }

    /// A reader that answers each ping stays past a timeout, whether its pong
    /// carries the ping's payload or none (lws reports no empty pong: the receive tap sees it).
    @Test(arguments: [true, false])
    func aPeerThatAnswersPingsStays(echoingThePayload: Bool) async throws {
        try await withServer(echo: false, configure: {
            $0.pingIntervalSeconds = 1
            // Room for the answer on a loaded machine: at the start of `swift test` the
            // test clients' tasks were seen to wait 10 s for a thread.
            $0.pingTimeoutSeconds = 15
        }) { server, port, handler in
            let client = try await WebSocketTestClient.connect(port: port)
            client.answersPings = false
            #expect(await handler.waitUntil { $0.opened.count == 1 })
            // Each ping comes after a second of silence: eighteen of them span more than a
            // timeout. They are answered on the client's own queue: at the start of a loaded
            // `swift test` (two beside each other on two cores) every test task was seen
            // to wait 16 s for a thread, past the timeout, while the server kept pinging.
            try await client.answerPings(18, echoingThePayload: echoingThePayload, timeout: 20)
            #expect(handler.closed.isEmpty)
            #expect(server.connectionCount == 1)
        }
    }

    /// Anything heard ends the silence, not only a pong: a client that sends but never reads
    /// (so never answers a ping) stays, the silent one beside it is dropped with a reason.
    @Test func aPeerThatSendsStaysAndTheSilentOneIsDropped() async throws {
        try await withServer(echo: false, configure: {
            $0.pingIntervalSeconds = 1
            $0.pingTimeoutSeconds = 15
        }) { server, port, handler in
            let talker = try await WebSocketTestClient.connect(port: port)
            let silent = try await WebSocketTestClient.connect(port: port)
            #expect(await handler.waitUntil { $0.opened.count == 2 })
            let silentID = handler.opened[1].id
            // Until the silent one is dropped (fifteen seconds or more), and a little past
            // it; sent from the client's own queue, so that a test task kept waiting for a
            // thread on a loaded machine does not make the talker silent too.
            let sent = try await talker.sendTexts("tick ", every: 0.25) { sent in
                (!handler.closed.isEmpty && sent >= 8) || sent > 400
            }
            #expect(await handler.waitUntil { $0.messageCount == sent })
            #expect(handler.closed.map(\.id) == [silentID])
            #expect(handler.closed.first?.code == .abnormal)
            #expect(handler.closed.first?.reason == "no answer to pings for 15 s")
            #expect(server.connectionCount == 1)
            _ = silent
        }
    }
}
