import ReactorHubAuth
import Foundation
import TestSupport
import Testing
@testable import ReactorHubEngine

@Suite("Identity timers")
struct IdentityTimerTests {
    let secret = Array("identity-timer-test-secret-0123456789abcdef".utf8)

    func policy(timeout: Duration = .seconds(60)) throws -> AuthPolicy {
        let revocations = RevocationList()
        let verifier = try TokenVerifier(algorithm: .hs256(secret: secret), revocations: revocations)
        return AuthPolicy(verifier: JWTIdentityVerifier(verifier: verifier, revocations: revocations), timeout: timeout, anonymousRights: Rights.none)
    }

    // Regression: each connection's expiry was an `asyncAfter` that kept its closure until the
    // token's exp, so closed connections held memory for as long as their tokens lived. Now
    // a closed connection's deadline is forgotten at once.
    @Test func aClosedConnectionKeepsNoTimerUntilItsTokensExp() async throws {
        let token = try TokenMinter(secret: secret).mint(subject: "alice", read: ["doc/*"], act: [], ttl: .seconds(7 * 86400), now: Date())
        let policy = try policy()
        try await withHub(configure: { $0.auth = policy }) { hub, server in
            var clients: [InMemoryClient] = []
            for index in 0..<20 {
                let client = try await server.rawClient()
                #expect(try await client.receive().contains(#""auth":"required""#))
                client.send(#"{"type":"auth","token":"\#(token)","ref":\#(index)}"#)
                #expect(try await client.receive().hasPrefix(#"{"type":"authed","ref":\#(index),"user":"alice""#))
                clients.append(client)
            }
            // One deadline per connection: the refresh replaced the auth timeout's.
            #expect(hub.identityDeadlines.count == 20)
            for client in clients.prefix(15) { client.close() }
            #expect(try await eventually { hub.identityDeadlines.count == 5 })
            for client in clients.dropFirst(15) { client.close() }
            #expect(try await eventually { hub.identityDeadlines.count == 0 })
        }
    }

    // Regression: a token valid for longer than Int's nanoseconds (an issuer's "never
    // expires") trapped converting its delay, which ended the daemon.
    @Test func aTokenThatExpiresCenturiesAheadIsServed() async throws {
        let token = try TokenMinter(secret: secret).mint(subject: "carol", read: [], act: [], ttl: .seconds(Int64.max / 4), now: Date())
        let policy = try policy()
        try await withHub(configure: { $0.auth = policy }) { hub, server in
            let client = try await server.rawClient()
            #expect(try await client.receive().contains(#""auth":"required""#))
            client.send(#"{"type":"auth","token":"\#(token)","ref":1}"#)
            #expect(try await client.receive().hasPrefix(#"{"type":"authed","ref":1,"user":"carol""#))
            client.send(#"{"type":"ping","ref":2}"#)
            #expect(try await client.receive() == #"{"type":"pong","ref":2}"#)
            #expect(hub.identityDeadlines.count == 1)
        }
    }

    @Test func theAuthTimeoutStillClosesAndARefreshedConnectionIsNotClosedByItsOldTimer() async throws {
        // The signed-in connection opens first, so its old timer would fire before the
        // waiting one's: once the waiting one is closed, the signed-in one has outlived it.
        // The timeout leaves room for the sign-in on a busy machine (3 s was not enough
        // beside the thread sanitizer's build, 10 s not at the start of a `swift test`
        // sharing two cores with another one, where tasks were seen to wait 10 s).
        let policy = try policy(timeout: .seconds(30))
        let token = try TokenMinter(secret: secret).mint(subject: "bob", read: [], act: [], ttl: .seconds(3600), now: Date())
        try await withHub(configure: { $0.auth = policy }) { _, server in
            let signedIn = try await server.rawClient()
            _ = try await signedIn.receive()
            signedIn.send(#"{"type":"auth","token":"\#(token)","ref":1}"#)
            #expect(try await signedIn.receive().hasPrefix(#"{"type":"authed""#))
            let waiting = try await server.rawClient()
            _ = try await waiting.receive()
            let closed = try await waiting.receiveClose(timeout: .seconds(120))
            #expect(closed.code == .policyViolation && closed.reason == "authentication timeout")
            signedIn.send(#"{"type":"ping","ref":2}"#)
            #expect(try await signedIn.receive() == #"{"type":"pong","ref":2}"#)
            #expect(signedIn.closeCode == nil)
        }
    }
}
