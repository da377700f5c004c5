import Foundation
import TestSupport
import Testing
@testable import Transport

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
            var pings = 0
            // Each ping comes after a second of silence: eighteen of them span more than a
            // timeout.
            while pings < 18 {
                guard case .ping(let payload) = try await client.receive(timeout: 20) else { continue }
                pings += 1
                try await client.sendFrame(opcode: 0xA, payload: echoingThePayload ? payload : [])
            }
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
            var sent = 0
            // Until the silent one is dropped (fifteen seconds or more), and a little past it.
            while handler.closed.isEmpty || sent < 8 {
                try await talker.send("tick \(sent)")
                sent += 1
                try await Task.sleep(for: .milliseconds(250))
                if sent > 400 { break }
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
