import ReactorHubJSON
import ReactorHubLocking
import Reactor
@testable import ReactorHubClient
import ReactorHubKinds
import Testing

/// Prediction against a server played by the test (`FakeSocket`): the shown state, the
/// confirmed state and the pending count through acks, patches, refusals, reconnects and
/// epochs, frame by frame (CLIENTS.md "Prediction").
@Suite struct PredictionProtocolTests {
    let counterState = #"{"value":0,"isLoading":false}"#
    let loading: JSONValue = ["value": 0, "isLoading": true]
    let idle: JSONValue = ["value": 0, "isLoading": false]

    /// A counter joined with the kind's own code as predictor, and every revision it publishes.
    func joinCounter(
        _ hub: HubClient, _ server: FakeConnection, version: Int = 0, predicted: Bool = true
    ) async throws -> (RemoteReactor<CounterState, CounterAction>, RemoteStates<Revision>) {
        async let joining = hub.join(
            "counter/a", state: CounterState.self, action: CounterAction.self,
            predictor: predicted ? .reactor(CounterReactor()) : nil
        )
        try await server.answerJoin("counter/a", state: counterState, version: version)
        let counter = try await joining
        return (counter, counter.revisions(bufferingNewest: 64))
    }

    /// A predictor on JSON that adds one to `value` for any action.
    let addOne = RemotePredictor<JSONValue, JSONValue> { state, _ in
        guard case .object(var object) = state, case .int(let value)? = object["value"] else { return nil }
        object["value"] = .int(value + 1)
        return .object(object)
    }

    func ack(_ server: FakeConnection, _ action: JSONValue, version: Int, applied: Int) {
        server.deliver(#"{"type":"ack","reactor":"counter/a","ref":\#(action["ref"]!.text),"version":\#(version),"applied":\#(applied)}"#)
    }

    @Test func anActionShowsAtOnceAndStaysUntilTheConfirmedStateReachesApplied() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        let (counter, revisions) = try await joinCounter(hub, server, version: 4)
        var iterator = revisions.makeAsyncIterator()
        #expect(await iterator.next()?.cause == .snapshot)

        async let sending = counter.dispatch(.increase)
        let predicted = try #require(await iterator.next())
        #expect(predicted.cause == .prediction)
        #expect(predicted.state == loading)                  // setLoading(true), the immediate part
        #expect(predicted.confirmedState == idle)
        #expect((predicted.version, predicted.pendingCount, predicted.isPredicted) == (4, 1, true))
        #expect(counter.state.isLoading && !counter.confirmedState.isLoading)

        let action = try await server.next("action")
        #expect(action["action"] == ["type": "increase"])
        ack(server, action, version: 4, applied: 5)
        let ack = try await sending
        #expect((ack.version, ack.applied) == (4, 5))
        #expect(counter.pendingCount == 1)                   // acknowledged, not yet included

        server.patch("counter/a", version: 5, #"[{"op":"replace","path":"/isLoading","value":true}]"#)
        let confirmed = try #require(await iterator.next())
        #expect(confirmed.cause == .patch)
        #expect((confirmed.version, confirmed.pendingCount) == (5, 0))
        #expect(confirmed.state == confirmed.confirmedState)
        #expect(confirmed.state == loading)

        // The later mutations are ordinary patches; the delay never ran on the client.
        server.patch("counter/a", version: 6, #"[{"op":"replace","path":"/value","value":1}]"#)
        #expect(try #require(await iterator.next()).state == ["value": 1, "isLoading": true])
        #expect(revisions.buffered == 0)
        await hub.close()
    }

    @Test func aRefusalRollsBackInOneRevisionBeforeTheSenderHearsOfIt() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        let (counter, revisions) = try await joinCounter(hub, server)
        var iterator = revisions.makeAsyncIterator()
        _ = await iterator.next()

        let outcome = Task { () -> (HubClientError?, JSONValue) in
            do throws(HubClientError) {
                try await counter.send(.decrease)
                return (nil, counter.revision.state)
            } catch {
                return (error, counter.revision.state)
            }
        }
        #expect(try #require(await iterator.next()).state == loading)
        let action = try await server.next("action")
        server.deliver(#"{"type":"error","ref":\#(action["ref"]!.text),"code":"invalid_action","message":"not now"}"#)
        let (error, stateWhenRefused) = await outcome.value
        #expect(error?.code == .invalidAction)
        #expect(stateWhenRefused == idle)                   // rolled back before the throw
        let rolledBack = try #require(await iterator.next())
        #expect((rolledBack.cause, rolledBack.state, rolledBack.pendingCount) == (.prediction, idle, 0))
        #expect(revisions.buffered == 0)                      // one revision, no flicker
        await hub.close()
    }

    @Test func everyPatchRebasesThePendingActionsOnTheNewConfirmedState() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        let (counter, _) = try await joinCounter(hub, server)
        let untyped = try await hub.join("counter/a", predictor: addOne)
        async let first = untyped.dispatch("increase")
        async let second = untyped.dispatch("increase")
        #expect(await eventually { untyped.pendingCount == 2 })
        #expect(untyped.state["value"] == 2)
        #expect(counter.state.value == 2)                     // one subscription: one shown state

        server.patch("counter/a", version: 1, #"[{"op":"replace","path":"/value","value":10}]"#)   // someone else's
        #expect(await eventually { untyped.version == 1 })
        #expect(untyped.state["value"] == 12)
        #expect(untyped.confirmedState["value"] == 10)

        let sent = [try await server.next("action"), try await server.next("action")]
        ack(server, sent[0], version: 1, applied: 2)
        ack(server, sent[1], version: 2, applied: 3)
        _ = try await first
        _ = try await second
        server.patch("counter/a", version: 2, #"[{"op":"replace","path":"/value","value":11}]"#)
        #expect(await eventually { untyped.version == 2 })
        #expect(untyped.pendingCount == 1)
        #expect(untyped.state["value"] == 12)
        server.patch("counter/a", version: 3, #"[{"op":"replace","path":"/value","value":12}]"#)
        #expect(await eventually { untyped.version == 3 })
        #expect(untyped.pendingCount == 0)
        #expect(untyped.revision.state == untyped.revision.confirmedState)
        await hub.close()
    }

    @Test func anAckWhoseAppliedIsItsVersionEndsThePredictionAtOnce() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        let (counter, _) = try await joinCounter(hub, server, version: 3)
        async let sending = counter.dispatch(.increase)
        let action = try await server.next("action")
        #expect(counter.pendingCount == 1)
        ack(server, action, version: 3, applied: 3)            // changed nothing at once
        _ = try await sending
        #expect(counter.pendingCount == 0)
        #expect(counter.state == counter.confirmedState)
        #expect(!counter.state.isLoading)
        await hub.close()
    }

    @Test func withoutAPredictorAnActionIsPendingButNotShown() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        let (counter, revisions) = try await joinCounter(hub, server, predicted: false)
        let states = counter.states(bufferingNewest: 8)
        async let sending = counter.dispatch(.increase)
        let action = try await server.next("action")
        #expect(counter.pendingCount == 1)
        #expect(counter.revision.state == counter.revision.confirmedState)
        #expect(counter.revision.cause == .prediction)
        ack(server, action, version: 0, applied: 1)
        _ = try await sending
        server.patch("counter/a", version: 1, #"[{"op":"replace","path":"/isLoading","value":true}]"#)
        #expect(await eventually { counter.version == 1 })
        #expect(counter.pendingCount == 0)
        // Revisions: snapshot, the pending count, the patch; states: the snapshot and the patch.
        #expect(revisions.buffered == 3)
        #expect(states.buffered == 2)
        await hub.close()
    }

    @Test func offlineActionsAreQueuedPredictedCappedAndSentAfterTheRejoinInOrder() async throws {
        let socket = FakeSocket()
        let ids = Locked(0)
        let (hub, first) = try await connectClient(socket) { options in
            options.maxQueuedActions = 2
            options.makeActionID = { "id\(ids.withLock { $0 += 1; return $0 })" }
        }
        let (counter, _) = try await joinCounter(hub, first)
        let untyped = try await hub.join("counter/a", predictor: addOne)
        first.drop()
        #expect(await eventually { if case .reconnecting = hub.status { true } else { false } })

        // One after the other: two `async let`s start in either order.
        async let one = untyped.dispatch("increase")
        #expect(await eventually { untyped.pendingCount == 1 })
        async let two = untyped.dispatch("decrease")
        #expect(await eventually { untyped.pendingCount == 2 })
        #expect(untyped.state["value"] == 2)
        do throws(HubClientError) {
            _ = try await untyped.dispatch("increase")
            Issue.record("a third queued action was taken")
        } catch {
            #expect(error.code == .queueFull)
        }
        #expect(untyped.pendingCount == 2)
        #expect(counter.state.value == 2)

        let second = try await socket.accept(session: "c2")
        let rejoin = try await second.next("join")
        #expect(await !second.hasUnread(within: .milliseconds(50)))   // nothing before the join is answered
        second.snapshot("counter/a", ref: rejoin["ref"], state: counterState, version: 0)
        let sent = [try await second.next("action"), try await second.next("action")]
        #expect(sent.map { $0["id"]?.stringValue } == ["id1", "id2"])
        #expect(sent.map { $0["action"] } == ["increase", "decrease"])
        ack(second, sent[0], version: 0, applied: 1)
        ack(second, sent[1], version: 1, applied: 2)
        _ = try await one
        _ = try await two
        second.patch("counter/a", version: 2, base: 0, #"[{"op":"replace","path":"/isLoading","value":true}]"#)
        #expect(await eventually { untyped.pendingCount == 0 })
        #expect(untyped.state == ["value": 0, "isLoading": true])
        await hub.close()
    }

    @Test func aSnapshotInAnotherEpochReplaysWhatIsPendingAndDropsWhatTheOldHistoryAcknowledged() async throws {
        let socket = FakeSocket()
        let (hub, first) = try await connectClient(socket)
        let (counter, _) = try await joinCounter(hub, first, version: 7)
        async let acknowledged = counter.dispatch(.increase)
        let action = try await first.next("action")
        ack(first, action, version: 7, applied: 8)             // its patch is lost with the server
        _ = try await acknowledged
        #expect(counter.pendingCount == 1)
        first.drop()
        #expect(await eventually { if case .reconnecting = hub.status { true } else { false } })
        async let queued = counter.dispatch(.decrease)
        #expect(await eventually { counter.pendingCount == 2 })

        let second = try await socket.accept(session: "c2")
        let rejoin = try await second.next("join")
        #expect(rejoin["since"] == ["epoch": "e1", "version": 7])
        second.snapshot("counter/a", ref: rejoin["ref"], state: #"{"value":5,"isLoading":false}"#, epoch: "e2", version: 2)
        let resent = try await second.next("action")
        #expect(resent["action"] == ["type": "decrease"])
        #expect(counter.epoch == "e2")
        #expect(counter.pendingCount == 1)                      // the decrease, replayed on e2
        #expect(counter.state == CounterState(value: 5, isLoading: true))
        #expect(counter.confirmedState == CounterState(value: 5, isLoading: false))
        ack(second, resent, version: 2, applied: 3)
        _ = try await queued
        second.patch("counter/a", version: 3, #"[{"op":"replace","path":"/isLoading","value":true}]"#)
        #expect(await eventually { counter.pendingCount == 0 })
        #expect(counter.revision.state == counter.revision.confirmedState)
        await hub.close()
    }

    @Test func aCancelledWaitBeforeTheAnswerRollsBackItsPrediction() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        let (counter, _) = try await joinCounter(hub, server)
        let waiting = Task { try await counter.dispatch(.increase) }
        _ = try await server.next("action")
        #expect(counter.state.isLoading)
        waiting.cancel()
        #expect(await eventually { counter.pendingCount == 0 })
        #expect(!counter.state.isLoading)
        await hub.close()
    }
}
