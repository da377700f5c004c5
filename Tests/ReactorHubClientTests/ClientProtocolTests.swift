import Foundation
import ReactorHubJSON
import ReactorHubLocking
import Reactor
@testable import ReactorHubClient
import ReactorHubKinds
import Testing

typealias CounterState = CounterReactor.State
typealias CounterAction = CounterReactor.Action

/// The client against a server played by the test (`FakeSocket`): versions, gaps,
/// resumes, pulses, actions and their resends, tokens. No sockets, no daemon.
@Suite struct ClientProtocolTests {
    let counterState = #"{"value":0,"isLoading":false}"#

    @Test func aJoinGivesTheSnapshotAndPatchesMoveItOn() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a", state: CounterState.self, action: CounterAction.self)
        let join = try await server.answerJoin("counter/a", state: counterState, version: 4)
        #expect(join["since"] == nil)
        #expect(join["ref"]?.intValue != nil)
        let counter = try await joining
        #expect(counter.currentState == CounterState(value: 0, isLoading: false))
        #expect(counter.version == 4)
        #expect(counter.epoch == "e1")

        server.patch("counter/a", version: 5, #"[{"op":"replace","path":"/isLoading","value":true}]"#)
        server.patch("counter/a", version: 6, #"[{"op":"replace","path":"/value","value":1}]"#)
        server.patch("counter/a", version: 9, base: 6, #"[{"op":"replace","path":"/isLoading","value":false},{"op":"replace","path":"/value","value":3}]"#)
        #expect(await eventually { counter.version == 9 })
        #expect(counter.currentState == CounterState(value: 3, isLoading: false))
        #expect(hub.server?.session == "c1")
        await hub.close()
    }

    @Test func aGapRejoinsOnceWithSinceAndTheMissedPatchesCatchUp() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a")
        try await server.answerJoin("counter/a", state: counterState, version: 0)
        let counter = try await joining

        server.patch("counter/a", version: 2, #"[{"op":"replace","path":"/value","value":2}]"#)
        server.patch("counter/a", version: 3, #"[{"op":"replace","path":"/value","value":3}]"#)
        let rejoin = try await server.next("join")
        #expect(rejoin["since"] == ["epoch": "e1", "version": 0])
        #expect(await !server.hasUnread())          // one re-join while the answer is pending
        #expect(counter.version == 0)                // patches that do not fit are ignored
        server.deliver(#"{"type":"resumed","reactor":"counter/a","ref":\#(rejoin["ref"]!.text),"epoch":"e1","version":3}"#)
        server.patch("counter/a", version: 1, #"[{"op":"replace","path":"/value","value":1}]"#)
        server.patch("counter/a", version: 2, #"[{"op":"replace","path":"/value","value":2}]"#)
        server.patch("counter/a", version: 3, #"[{"op":"replace","path":"/value","value":3}]"#)
        #expect(await eventually { counter.version == 3 })
        #expect(counter.currentState["value"] == 3)
        await hub.close()
    }

    @Test func aPatchThatDoesNotApplyRejoinsWithoutSinceAndTheSnapshotReplacesTheCopy() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("doc/a")
        try await server.answerJoin("doc/a", state: #"{"a":1}"#, version: 7)
        let doc = try await joining

        server.patch("doc/a", version: 8, #"[{"op":"replace","path":"/a","value":2},{"op":"remove","path":"/missing"}]"#)
        let rejoin = try await server.next("join")
        #expect(rejoin["since"] == nil)
        #expect(doc.currentState == ["a": 1])
        #expect(doc.version == 7)
        server.snapshot("doc/a", ref: rejoin["ref"], state: #"{"a":5,"b":[]}"#, version: 12)
        #expect(await eventually { doc.version == 12 })
        #expect(doc.currentState == ["a": 5, "b": []])
        await hub.close()
    }

    @Test func stalePatchesAndPatchesOfOtherReactorsAreIgnored() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a")
        try await server.answerJoin("counter/a", state: counterState, version: 2)
        let counter = try await joining
        server.patch("counter/a", version: 2, #"[{"op":"replace","path":"/value","value":99}]"#)
        server.patch("counter/b", version: 3, #"[{"op":"replace","path":"/value","value":99}]"#)
        server.patch("counter/a", version: 3, #"[{"op":"replace","path":"/value","value":1}]"#)
        #expect(await eventually { counter.version == 3 })
        #expect(counter.currentState["value"] == 1)
        #expect(await !server.hasUnread())
        await hub.close()
    }

    @Test func anUnsolicitedSnapshotReplacesTheState() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a")
        try await server.answerJoin("counter/a", state: counterState, version: 2)
        let counter = try await joining
        server.snapshot("counter/a", ref: nil, state: #"{"value":40,"isLoading":false}"#, version: 40)
        #expect(await eventually { counter.version == 40 })
        #expect(counter.currentState["value"] == 40)
        await hub.close()
    }

    @Test func afterAReconnectEveryReactorIsResumedWithSince() async throws {
        let socket = FakeSocket()
        let (hub, first) = try await connectClient(socket)
        let statuses = hub.statusUpdates
        async let joiningA = hub.join("counter/a")
        try await first.answerJoin("counter/a", state: counterState, epoch: "ea", version: 3)
        let a = try await joiningA
        async let joiningB = hub.join("doc/b")
        try await first.answerJoin("doc/b", state: #"{"x":1}"#, epoch: "eb", version: 0)
        let b = try await joiningB

        first.drop(code: 1001, reason: "server shutting down")
        let second = try await socket.accept(session: "c2")
        let joins = [try await second.next("join"), try await second.next("join")]
        #expect(joins.map { $0["reactor"] } == ["counter/a", "doc/b"])
        #expect(joins[0]["since"] == ["epoch": "ea", "version": 3])
        #expect(joins[1]["since"] == ["epoch": "eb", "version": 0])
        // counter/a resumes and catches up; doc/b was restarted (a new epoch): a snapshot.
        second.deliver(#"{"type":"resumed","reactor":"counter/a","ref":\#(joins[0]["ref"]!.text),"epoch":"ea","version":4}"#)
        second.patch("counter/a", version: 4, #"[{"op":"replace","path":"/value","value":4}]"#)
        second.snapshot("doc/b", ref: joins[1]["ref"], state: #"{"y":2}"#, epoch: "eb2", version: 1)
        #expect(await eventually { a.version == 4 && b.epoch == "eb2" })
        #expect(a.currentState["value"] == 4)
        #expect(b.currentState == ["y": 2])

        var seen: [HubClientStatus] = []
        for await status in statuses {
            seen.append(status)
            if status == .open(session: "c2") { break }
        }
        #expect(seen.first == .open(session: "c1"))
        #expect(seen.last == .open(session: "c2"))
        #expect(seen.contains { if case .reconnecting(1, .milliseconds(5), _) = $0 { true } else { false } })
        await hub.close()
    }

    @Test func aResumeIntoAnotherHistoryJoinsAfresh() async throws {
        let socket = FakeSocket()
        let (hub, first) = try await connectClient(socket)
        async let joining = hub.join("counter/a")
        try await first.answerJoin("counter/a", state: counterState, epoch: "e1", version: 3)
        let counter = try await joining
        first.drop()
        let second = try await socket.accept(session: "c2")
        let resume = try await second.next("join")
        second.deliver(#"{"type":"resumed","reactor":"counter/a","ref":\#(resume["ref"]!.text),"epoch":"other","version":3}"#)
        let fresh = try await second.next("join")
        #expect(fresh["since"] == nil)
        second.snapshot("counter/a", ref: fresh["ref"], state: #"{"value":7,"isLoading":false}"#, epoch: "other", version: 1)
        #expect(await eventually { counter.epoch == "other" })
        #expect(counter.currentState["value"] == 7)
        await hub.close()
    }

    @Test func reconnectAttemptsBackOffExponentiallyUntilTheServerIsBack() async throws {
        let socket = FakeSocket()
        let (hub, first) = try await connectClient(socket) { options in
            options.initialDelay = .milliseconds(10)
            options.maxDelay = .milliseconds(40)
        }
        let statuses = hub.statusUpdates
        socket.refuse(ClientSocketError("refused"), ClientSocketError("refused"), ClientSocketError("refused"), ClientSocketError("refused"))
        first.drop()
        _ = try await socket.accept(session: "c2")
        var delays: [Duration] = []
        for await status in statuses {
            if case .reconnecting(_, let delay, _) = status { delays.append(delay) }
            if status == .open(session: "c2") { break }
        }
        #expect(delays == [.milliseconds(10), .milliseconds(20), .milliseconds(40), .milliseconds(40), .milliseconds(40)])
        #expect(socket.requests.count == 6)
        await hub.close()
    }

    @Test func actionsCarryAnIDAndTheAckGivesTheVersion() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a", state: CounterState.self, action: CounterAction.self)
        try await server.answerJoin("counter/a", state: counterState, version: 0)
        let counter = try await joining

        async let sent = counter.send(.increase)
        let action = try await server.next("action")
        #expect(action["action"] == ["type": "increase"])
        #expect(action["reactor"] == "counter/a")
        let id = try #require(action["id"]?.stringValue)
        #expect(UUID(uuidString: id) != nil)
        server.deliver(#"{"type":"ack","reactor":"counter/a","ref":\#(action["ref"]!.text),"version":0}"#)
        #expect(try await sent == 0)

        async let second = counter.send(.decrease)
        let other = try await server.next("action")
        #expect(other["id"]?.stringValue != id)
        server.deliver(#"{"type":"ack","reactor":"counter/a","ref":\#(other["ref"]!.text),"version":3}"#)
        #expect(try await second == 3)
        await hub.close()
    }

    @Test func aRefusalSurfacesWithTheServersCodeAndMessage() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a")
        try await server.answerJoin("counter/a", state: counterState, version: 0)
        let counter = try await joining
        async let sent = counter.send("jump")
        let action = try await server.next("action")
        #expect(action["action"] == "jump")
        server.deliver(#"{"type":"error","ref":\#(action["ref"]!.text),"code":"unknown_action","message":"counter has no action 'jump'; actions: increase, decrease"}"#)
        do {
            _ = try await sent
            Issue.record("the refusal did not throw")
        } catch let error as HubClientError {
            #expect(error.code == .unknownAction)
            #expect(error.message == "counter has no action 'jump'; actions: increase, decrease")
            #expect(error.reactor == "counter/a")
        }
        await hub.close()
    }

    @Test func anActionWhoseAckWasLostIsResentOnceWithTheSameIDAfterTheRejoin() async throws {
        let socket = FakeSocket()
        let (hub, first) = try await connectClient(socket)
        async let joining = hub.join("counter/a", state: CounterState.self, action: CounterAction.self)
        try await first.answerJoin("counter/a", state: counterState, version: 0)
        let counter = try await joining

        async let ack = counter.dispatch(.increase)
        let original = try await first.next("action")
        first.drop()                                            // the ack is lost with the connection

        let second = try await socket.accept(session: "c2")
        let rejoin = try await second.next("join")
        #expect(await !second.hasUnread())                      // not before the reactor is joined again
        second.deliver(#"{"type":"resumed","reactor":"counter/a","ref":\#(rejoin["ref"]!.text),"epoch":"e1","version":0}"#)
        let resent = try await second.next("action")
        #expect(resent["id"] == original["id"])
        #expect(resent["action"] == original["action"])
        #expect(resent["ref"] != original["ref"])
        second.deliver(#"{"type":"ack","reactor":"counter/a","ref":\#(resent["ref"]!.text),"version":0,"duplicate":true}"#)
        #expect(try await ack == ActionAck(version: 0, duplicate: true))
        await hub.close()
    }

    @Test func anActionLostTwiceFailsAsDisconnected() async throws {
        let socket = FakeSocket()
        let (hub, first) = try await connectClient(socket)
        async let joining = hub.join("counter/a")
        try await first.answerJoin("counter/a", state: counterState, version: 0)
        let counter = try await joining
        async let sent = counter.send("increase")
        _ = try await first.next("action")
        first.drop()
        let second = try await socket.accept(session: "c2")
        let rejoin = try await second.next("join")
        second.snapshot("counter/a", ref: rejoin["ref"], state: counterState, version: 0)
        _ = try await second.next("action")
        second.drop()
        do {
            _ = try await sent
            Issue.record("a twice-lost action succeeded")
        } catch let error as HubClientError {
            #expect(error.code == .disconnected)
            #expect(error.message.contains("twice"))
        }
        await hub.close()
    }

    @Test func withoutResendsALostActionFailsAtOnce() async throws {
        let socket = FakeSocket()
        let (hub, first) = try await connectClient(socket) { $0.resendsUnansweredActions = false }
        async let joining = hub.join("counter/a")
        try await first.answerJoin("counter/a", state: counterState, version: 0)
        let counter = try await joining
        async let sent = counter.send("increase")
        _ = try await first.next("action")
        first.drop()
        do {
            _ = try await sent
            Issue.record("a lost action succeeded")
        } catch let error as HubClientError {
            #expect(error.code == .disconnected)
        }
        await hub.close()
    }

    @Test func actionsSentWhileDisconnectedGoOutOnceTheReactorIsJoinedAgain() async throws {
        let socket = FakeSocket()
        let (hub, first) = try await connectClient(socket) { $0.initialDelay = .milliseconds(200) }
        async let joining = hub.join("counter/a")
        try await first.answerJoin("counter/a", state: counterState, version: 0)
        let counter = try await joining
        first.drop()
        #expect(await eventually { if case .reconnecting = hub.status { true } else { false } })
        async let sent = counter.send("decrease")
        let second = try await socket.accept(session: "c2")
        let rejoin = try await second.next("join")
        second.snapshot("counter/a", ref: rejoin["ref"], state: counterState, version: 0)
        let action = try await second.next("action")
        #expect(action["action"] == "decrease")
        second.deliver(#"{"type":"ack","reactor":"counter/a","ref":\#(action["ref"]!.text),"version":0}"#)
        #expect(try await sent == 0)
        await hub.close()
    }

    @Test func aRefusedJoinThrowsTheServersError() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("nope/a")
        let join = try await server.next("join")
        server.deliver(#"{"type":"error","ref":\#(join["ref"]!.text),"code":"unknown_reactor","message":"no kind 'nope'; kinds: counter, doc"}"#)
        do {
            _ = try await joining
            Issue.record("joined")
        } catch let error as HubClientError {
            #expect(error.code == .unknownReactor)
        }
        await #expect(throws: HubClientError.self) { try await hub.join("not an address") }
        await hub.close()
    }

    @Test func aStateThatDoesNotDecodeFailsTheJoinAndLeaves() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a", state: CounterState.self, action: CounterAction.self)
        try await server.answerJoin("counter/a", state: #"{"value":"zero"}"#, version: 0)
        let leave = try await server.next("leave")
        #expect(leave["reactor"] == "counter/a")
        server.deliver(#"{"type":"left","reactor":"counter/a","ref":\#(leave["ref"]!.text)}"#)
        do {
            _ = try await joining
            Issue.record("joined")
        } catch let error as HubClientError {
            #expect(error.code == .decodingFailed)
        }
        await hub.close()
    }

    @Test func pulsesFireOnEveryAssignmentAndAreCountedInTheState() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a", state: CounterState.self, action: CounterAction.self)
        try await server.answerJoin("counter/a", state: counterState, version: 3)
        let counter = try await joining
        let alerts = counter.pulse(\.$alertMessage)
        let named = counter.pulse(named: "alertMessage", as: String?.self)

        server.pulse("counter/a", version: 3, name: "alertMessage", value: #""increased!""#)
        server.pulse("counter/a", version: 3, name: "alertMessage", value: #""increased!""#)
        server.pulse("counter/a", version: 3, name: "alertMessage", value: "null")
        var received: [String?] = []
        for await alert in alerts {
            received.append(alert)
            if received.count == 3 { break }
        }
        #expect(received == ["increased!", "increased!", nil])
        var byName: [String?] = []
        for await alert in named {
            byName.append(alert)
            if byName.count == 3 { break }
        }
        #expect(byName == received)
        #expect(await eventually { counter.currentState.$alertMessage.valueUpdatedCount == 3 })
        #expect(counter.currentState.alertMessage == nil)
        #expect(counter.revision.pulses["alertMessage"]?.count == 3)

        // A stream made now does not see the pulses before it.
        let late = counter.pulse(\.$alertMessage)
        server.pulse("counter/a", version: 3, name: "alertMessage", value: #""decreased!""#)
        var iterator = late.makeAsyncIterator()
        #expect(await iterator.next() == "decreased!")
        await hub.close()
    }

    @Test func aKeyPathWithoutAKnownPulseGivesAnEndedStream() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("todo/a", state: TodoReactor.State.self, action: TodoReactor.Action.self)
        try await server.answerJoin("todo/a", state: #"{"items":[]}"#, version: 0)
        let todo = try await joining
        struct Alerting: Decodable, Sendable { @Pulse var alert: String? }
        async let joiningAgain = hub.join("todo/a", state: Alerting.self, action: TodoReactor.Action.self)
        let other = try await joiningAgain
        var iterator = other.pulse(\.$alert).makeAsyncIterator()
        #expect(await iterator.next() == nil)
        _ = todo
        await hub.close()
    }

    @Test func leavingSendsLeaveEndsTheStreamsAndRefusesActions() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a")
        try await server.answerJoin("counter/a", state: counterState, version: 0)
        let counter = try await joining
        let states = counter.states
        async let leaving: Void = counter.leave()
        let leave = try await server.next("leave")
        server.deliver(#"{"type":"left","reactor":"counter/a","ref":\#(leave["ref"]!.text)}"#)
        await leaving
        var seen = 0
        for await _ in states { seen += 1 }
        #expect(seen == 1)                                  // the current state, then the end
        await #expect(throws: HubClientError.self) { try await counter.send("increase") }
        await hub.close()
    }

    @Test func twoHandlesOfOneReactorShareOneSubscription() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a")
        try await server.answerJoin("counter/a", state: counterState, version: 0)
        let first = try await joining
        let second = try await hub.join("counter/a", state: CounterState.self, action: CounterAction.self)
        #expect(await !server.hasUnread())
        #expect(second.currentState.value == 0)
        await first.leave()
        #expect(await !server.hasUnread())
        async let leaving: Void = second.leave()
        let leave = try await server.next("leave")
        server.deliver(#"{"type":"left","reactor":"counter/a","ref":\#(leave["ref"]!.text)}"#)
        await leaving
        await hub.close()
    }

    @Test func anUnsolicitedLeftEndsTheReactorWithItsReason() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("doc/x")
        try await server.answerJoin("doc/x", state: "{}", version: 0)
        let doc = try await joining
        server.deliver(#"{"type":"left","reactor":"doc/x","reason":"forbidden"}"#)
        var iterator = doc.states.makeAsyncIterator()
        _ = await iterator.next()
        #expect(await iterator.next() == nil)
        do {
            try await doc.send(["type": "set", "path": "/a", "value": 1])
            Issue.record("sent")
        } catch {
            #expect(error.code == .left)
        }
        await hub.close()
    }

    @Test func closingFailsWhatWaitsAndEndsEveryStream() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join("counter/a")
        try await server.answerJoin("counter/a", state: counterState, version: 0)
        let counter = try await joining
        let states = counter.states
        async let sent = counter.send("increase")
        _ = try await server.next("action")
        await hub.close()
        do {
            _ = try await sent
            Issue.record("sent")
        } catch let error as HubClientError {
            #expect(error.code == .closed)
        }
        var count = 0
        for await _ in states { count += 1 }
        #expect(count == 1)
        #expect(hub.status == .closed)
        #expect(server.closedByClient?.code == 1000)
        #expect(!socket.isShutDown)          // a socket handed in is not the client's to shut down
    }

    @Test func theFirstConnectionFailingThrows() async throws {
        let socket = FakeSocket()
        socket.refuse(ClientSocketError("connection refused"))
        do {
            _ = try await HubClient.connect("ws://fake/ws", options: testOptions(socket), logger: clientTestLogger)
            Issue.record("connected")
        } catch {
            #expect(error.code == .cannotConnect)
            #expect(error.message.contains("connection refused"))
        }
        let refusing = FakeSocket()
        refusing.refuse(ClientSocketError("HTTP 401", httpStatus: 401))
        do {
            _ = try await HubClient.connect("ws://fake/ws", token: .static("t"), options: testOptions(refusing), logger: clientTestLogger)
            Issue.record("connected")
        } catch {
            #expect(error.code == .unauthenticated)
        }
    }

    @Test func theTokenGoesInTheAuthorizationHeader() async throws {
        let socket = FakeSocket()
        let (hub, _) = try await connectClient(socket, token: .static("abc.def.ghi"))
        #expect(socket.requests.first?.headers["Authorization"] == "Bearer abc.def.ghi")
        #expect(socket.requests.first?.subprotocols == ["reactorhub.v1"])
        await hub.close()
    }

    @Test func aProviderTokenIsRefreshedInAnAuthMessageBeforeItExpires() async throws {
        let socket = FakeSocket()
        let issued = Locked(0)
        let provider: @Sendable () async throws -> String = {
            let number = issued.withLock { count -> Int in
                count += 1
                return count
            }
            return makeToken(["sub": "alice", "n": number, "exp": Date().timeIntervalSince1970 + 2])
        }
        let (hub, server) = try await connectClient(socket, token: .provider(provider))
        let header = try #require(socket.requests.first?.headers["Authorization"])
        #expect(TokenExpiry.expiry(of: String(header.dropFirst("Bearer ".count))) != nil)
        // The token lives 2 s, less than twice the lead: refreshed halfway, after about 1 s.
        let auth = try await server.next("auth", timeout: .seconds(30))
        let fresh = try #require(auth["token"]?.stringValue)
        #expect(fresh != String(header.dropFirst("Bearer ".count)))
        #expect(issued.withLock { $0 } == 2)
        server.deliver(#"{"type":"authed","ref":\#(auth["ref"]!.text),"user":"alice","expires":\#(Int(Date().timeIntervalSince1970) + 2)}"#)
        await hub.close()
    }

    @Test func afterTokenExpiredTheProviderIsAskedBeforeReconnecting() async throws {
        let socket = FakeSocket()
        let issued = Locked(0)
        let provider: @Sendable () async throws -> String = {
            let number = issued.withLock { count -> Int in
                count += 1
                return count
            }
            return makeToken(["sub": "alice", "n": number, "exp": Date().timeIntervalSince1970 + 3600])
        }
        let (hub, first) = try await connectClient(socket, token: .provider(provider))
        first.drop(code: 1008, reason: "token expired")
        _ = try await socket.accept(session: "c2")
        let headers = socket.requests.map { $0.headers["Authorization"] }
        #expect(headers.count == 2)
        #expect(headers[0] != headers[1])
        #expect(issued.withLock { $0 } == 2)
        // A drop for another reason reuses the token that is still valid.
        let second = try await socket.nextConnectionIfAny()
        second?.drop()
        await hub.close()
    }

    @Test func aServerThatWaitsForAuthGetsTheTokenInAMessage() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket, token: .static("abc.def.ghi"), hello: #","auth":"required""#)
        let auth = try await server.next("auth")
        #expect(auth["token"] == "abc.def.ghi")
        await hub.close()
    }

    @Test func pingMeasuresTheRoundTrip() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let rtt = hub.ping()
        let ping = try await server.next("ping")
        server.deliver(#"{"type":"pong","ref":\#(ping["ref"]!.text)}"#)
        #expect(try await rtt < .seconds(5))
        await hub.close()
    }
}

extension FakeSocket {
    /// The next connection if the client opened one already.
    func nextConnectionIfAny() async throws -> FakeConnection? {
        try? await nextConnection(timeout: .milliseconds(1))
    }
}

extension CounterReactor.State {
    init(value: Int, isLoading: Bool) {
        self = try! JSONValueDecoder().decode(Self.self, from: ["value": .int(value), "isLoading": .bool(isLoading)])
    }
}
