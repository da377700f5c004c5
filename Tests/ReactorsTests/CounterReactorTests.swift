import ReactorHubJSON
import Reactor
import ReactorTesting
import ReactorHubKinds
import Testing

@Suite("Shipped counter kind")
struct CounterReactorTests {
    @Test func increaseUsesTheConfiguredDelay() async {
        let store = TestStore(reactor: CounterReactor(delay: .milliseconds(120)))
        await store.send(.increase) { $0.isLoading = true }
        await store.advance(by: .milliseconds(119))
        await store.advance(by: .milliseconds(1))
        await store.receive { $0.value = 1 }
        await store.receive { $0.isLoading = false }
        await store.receive { $0.alertMessage = "increased!" }
        await store.finish()
    }

    @Test func zeroDelayStillRunsTheWholeSequence() async {
        let store = TestStore(reactor: CounterReactor(delay: .zero))
        await store.send(.decrease) { $0.isLoading = true }
        await store.advance(by: .zero)
        await store.receive { $0.value = -1 }
        await store.receive { $0.isLoading = false }
        await store.receive { $0.alertMessage = "decreased!" }
        await store.finish()
    }

    @Test func stateEncodesWithoutItsPulse() throws {
        let json = try JSONValueEncoder().encode(CounterReactor().initialState)
        // Without a pulse recorder the pulse is encoded as its value (here nil: omitted).
        #expect(json["value"] == 0)
        #expect(json["isLoading"] == false)
    }
}
