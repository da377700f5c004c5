import Observation
import ReactorHubJSON
import ReactorHubLocking
import Reactor
@testable import ReactorHubClient
import ReactorHubKinds
import Testing

/// `ObservableRemoteReactor` under `withObservationTracking`, as SwiftUI observes it: a view
/// that reads `state` is told exactly when the shown state changes (a patch, a prediction,
/// a rollback), and never for a pulse, a presence change, or a patch it had predicted.
@MainActor
@Suite struct ObservationTests {
    let counterState = #"{"value":0,"isLoading":false}"#

    /// Counts the changes of what `read` reads, re-arming the tracking after each one, as
    /// SwiftUI does after each render.
    @MainActor
    final class ChangeCounter: Sendable {
        nonisolated let count = Locked(0)

        func track(_ read: @escaping @Sendable @MainActor () -> Void) {
            withObservationTracking {
                read()
            } onChange: { [self] in
                count.withLock { $0 += 1 }
                Task { @MainActor in self.track(read) }
            }
        }

        nonisolated var value: Int { count.withLock { $0 } }
    }

    @Test func aViewReadingStateIsToldExactlyWhenTheShownStateChanges() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        async let joining = hub.join(
            "counter/a", state: CounterState.self, action: CounterAction.self, predictor: .reactor(CounterReactor())
        )
        try await server.answerJoin("counter/a", state: counterState, version: 0)
        let model = ObservableRemoteReactor(try await joining)
        let following = Task { await model.run() }
        let stateChanges = ChangeCounter()
        stateChanges.track { _ = model.state.value; _ = model.state.isLoading }
        let pendingChanges = ChangeCounter()
        pendingChanges.track { _ = model.pendingCount }

        // A prediction: one change, shown at once.
        model.send(.increase)
        #expect(await eventually { stateChanges.value == 1 })
        #expect(model.state == CounterState(value: 0, isLoading: true))
        #expect(model.confirmedState == CounterState(value: 0, isLoading: false))
        #expect(model.pendingCount == 1)
        let action = try await server.next("action")

        // The ack and the patch that was predicted: not a new state.
        server.deliver(#"{"type":"ack","reactor":"counter/a","ref":\#(action["ref"]!.text),"version":0,"applied":1}"#)
        server.patch("counter/a", version: 1, #"[{"op":"replace","path":"/isLoading","value":true}]"#)
        #expect(await eventually { model.version == 1 && model.pendingCount == 0 })
        #expect(stateChanges.value == 1)
        #expect(pendingChanges.value == 2)                  // 0 → 1 → 0

        // A pulse: a revision the model takes, but not a new state.
        server.pulse("counter/a", version: 1, name: "alertMessage", value: #""increased!""#)
        #expect(await eventually { model.remote.revision.cause == .pulse })
        let pulseRevision = model.remote.revision.number
        #expect(await eventually { model.revisionNumber >= pulseRevision })
        // A presence change: no revision at all.
        server.deliver(#"{"type":"presence","reactor":"counter/a","joins":{"c9":{"user":"bob","state":{"cursor":1}}},"leaves":[]}"#)
        #expect(await eventually { model.remote.presence.entries.count == 1 })
        #expect(stateChanges.value == 1)

        // Others' patches: one change each.
        server.patch("counter/a", version: 2, #"[{"op":"replace","path":"/value","value":1}]"#)
        #expect(await eventually { stateChanges.value == 2 })
        server.patch("counter/a", version: 3, #"[{"op":"replace","path":"/isLoading","value":false}]"#)
        #expect(await eventually { stateChanges.value == 3 })
        #expect((model.state.value, model.state.isLoading) == (1, false))

        // A refusal: the prediction, then back in one change.
        model.send(.decrease)
        #expect(await eventually { stateChanges.value == 4 })
        #expect(model.state.isLoading)
        let refused = try await server.next("action")
        server.deliver(#"{"type":"error","ref":\#(refused["ref"]!.text),"code":"invalid_action","message":"not now"}"#)
        #expect(await eventually { model.lastError != nil })
        #expect(await eventually { stateChanges.value == 5 })
        #expect((model.state.value, model.state.isLoading) == (1, false))
        #expect(model.lastError?.code == .invalidAction)
        #expect(pendingChanges.value == 4)
        #expect(stateChanges.value == 5)
        await hub.close()
        following.cancel()
    }
}
