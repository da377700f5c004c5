import Foundation
import ReactorHubJSON
@testable import ReactorHubClient
import ReactorHubKinds
import TestSupport
import Testing

/// The client over libwebsockets against Peers/fake_hub.py, for the parts of the contract
/// the daemon does not implement yet: action ids answered with `duplicate:true`, and
/// token refreshes in `auth` messages.
@Suite(.serialized) struct LiveFakeHubTests {
    func options() -> HubClientOptions {
        var options = HubClientOptions()
        options.initialDelay = .milliseconds(20)
        options.maxDelay = .milliseconds(100)
        return options
    }

    /// The events the fake hub printed, up to and including the first that starts with `prefix`.
    func lines(from peer: ChildProcess, through prefix: String, timeout: Duration = .seconds(30)) async throws -> [String] {
        var lines: [String] = []
        while true {
            let line = try await peer.nextLine(timeout: timeout)
            lines.append(line)
            if line.hasPrefix(prefix) { return lines }
        }
    }

    @Test func anActionWhoseAckWasLostIsResentWithTheSameIDAndAnsweredOnce() async throws {
        let (peer, port) = try await Peer.start("fake_hub.py", ["--drop-first-ack"])
        let hub = try await HubClient.connect("ws://127.0.0.1:\(port)/ws", options: options(), logger: clientTestLogger)
        let counter = try await hub.join("counter/x", state: CounterReactor.State.self, action: CounterReactor.Action.self)
        let ack = try await counter.dispatch(.increase)
        #expect(ack == ActionAck(version: 0, duplicate: true))
        #expect(await eventually { counter.currentState.value == 1 })   // applied once

        var events = try await lines(from: peer, through: "action ")
        events += try await lines(from: peer, through: "action ")
        let actions = events.filter { $0.hasPrefix("action ") }.map { $0.split(separator: " ") }
        #expect(events.contains("join counter/x fake:0"))     // resumed from where it was
        #expect(actions.count == 2)
        #expect(actions.first?[1] == actions.last?[1])        // the same id
        #expect(actions.first?[2] != actions.last?[2])        // a new ref
        #expect(events.filter { $0.hasPrefix("upgrade ") }.count == 2)
        await hub.close()
        peer.kill()
    }

    @Test func aProviderTokenIsSentOnTheUpgradeAndRefreshedInAnAuthMessage() async throws {
        let (peer, port) = try await Peer.start("fake_hub.py")
        let provider: @Sendable () async throws -> String = {
            makeToken(["sub": "alice", "exp": Date().timeIntervalSince1970 + 2, "jti": UUID().uuidString])
        }
        let hub = try await HubClient.connect("ws://127.0.0.1:\(port)/ws", token: .provider(provider), options: options(), logger: clientTestLogger)
        let upgrade = try await peer.line(after: "upgrade ")
        #expect(upgrade.hasPrefix("Bearer "))
        let refreshed = try await peer.line(after: "auth ", timeout: .seconds(30))
        #expect(TokenExpiry.expiry(of: refreshed) != nil)
        #expect("Bearer " + refreshed != upgrade)
        await hub.close()
        peer.kill()
    }
}
