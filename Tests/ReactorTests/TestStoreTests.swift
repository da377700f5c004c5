import Reactor
import ReactorTesting
import Testing

/// The test store fails whenever something happened that the test did not assert.
@Suite struct TestStoreTests {
    @Test func failsWhenAStateChangeIsNotAsserted() async {
        await withKnownIssue {
            let store = TestStore(reactor: CounterReactor())
            await store.send(.increase)
            await store.finish()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("1 state change(s) were not asserted before finish()") }
        }
    }

    @Test func failsWhenTheStateDiffersAndShowsTheDifference() async {
        await withKnownIssue {
            let store = TestStore(reactor: CounterViewReactor())
            await store.send(.increase) { $0.value = 1 }
            await store.advance(by: .milliseconds(500))
            await store.receive { $0.value = 1 }
            await store.receive { $0.isLoading = false }
            await store.receive { $0.alertMessage = "increased!" }
            await store.finish()
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("The state after send(increase) is not the expected one")
                && text.contains("−   - value: 1") && text.contains("+   - value: 0")
                && text.contains("−   - isLoading: false") && text.contains("+   - isLoading: true")
        }
    }

    @Test func failsWhenAPulseIsNotAsserted() async {
        await withKnownIssue {
            let store = TestStore(reactor: CounterViewReactor())
            await store.send(.increase) { $0.isLoading = true }
            await store.advance(by: .milliseconds(500))
            await store.receive { $0.value = 1 }
            await store.receive { $0.isLoading = false }
            await store.receive()
            await store.finish()
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.contains("The state after receive is not the expected one")
                && text.contains("−     - valueUpdatedCount: 0") && text.contains("+     - valueUpdatedCount: 1")
        }
    }

    @Test func failsWhenAChangeIsExpectedButNoneHappens() async {
        await withKnownIssue {
            let store = TestStore(reactor: CounterViewReactor())
            await store.send(.increase) { $0.isLoading = true }
            await store.receive { $0.value = 1 }
            await store.advance(by: .milliseconds(500))
            await store.receive { $0.value = 1 }
            await store.receive { $0.isLoading = false }
            await store.receive { $0.alertMessage = "increased!" }
            await store.finish()
        } matching: { issue in
            issue.comments.contains { $0.rawValue == "Expected a state change after receive, but none happened (effects are in flight: advance the clock?)" }
        }
    }

    @Test func failsWhenEffectsAreStillInFlightAtFinish() async {
        await withKnownIssue {
            let store = TestStore(reactor: CounterViewReactor())
            await store.send(.increase) { $0.isLoading = true }
            await store.finish()
            #expect(!store.runtime.hasEffectsInFlight)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("Effects are still in flight at finish()") }
        }
    }

    @Test func failsWhenAStoreIsReleasedWithUnassertedChanges() async {
        await withKnownIssue {
            var store: TestStore<CounterReactor>? = TestStore(reactor: CounterReactor())
            await store?.send(.increase)
            store = nil
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("were not asserted before the end of the test") }
        }
    }

    @Test func failsWhenAnActionIsUnexpectedlyRefused() async {
        await withKnownIssue {
            let store = TestStore(reactor: TodoReactor())
            await store.send(.toggle(id: "x"))
            await store.finish()
        } matching: { issue in
            issue.comments.contains { $0.rawValue == "send(toggle(id: \"x\")) was refused: no item with id x" }
        }
    }

    @Test func failsWhenTheRefusalMessageDiffers() async {
        await withKnownIssue {
            let store = TestStore(reactor: TodoReactor())
            await store.send(.toggle(id: "x"), refusedWith: "something else")
            await store.finish()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.hasPrefix("send(toggle(id: \"x\")) should be refused with \"something else\"") }
        }
    }

    @Test func failsWhenSendingWithChangesLeftToReceive() async {
        await withKnownIssue {
            let store = TestStore(reactor: CounterReactor())
            await store.send(.increase)
            await store.send(.increase) { $0 = 2 }
            await store.finish()
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("were not asserted before send(increase)") }
        }
    }

    @Test func passesWhenEverythingIsAsserted() async {
        let store = TestStore(reactor: CounterReactor())
        await store.send(.increase) { $0 = 1 }
        await store.send(.increase)
        await store.receive { $0 = 2 }
        await store.finish()
        #expect(store.state == 2)
    }
}
