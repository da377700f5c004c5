import ReactorHubLocking
import Reactor
/// Values appended from any thread, read back in order.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Locked<[Value]>([])

    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    var values: [Value] {
        storage.withLock { $0 }
    }
}

extension ReactorRuntime {
    /// Records every state the runtime publishes from now on; keep the observation alive.
    func recordStates() -> (Recorder<R.State>, RuntimeObservation) {
        let recorder = Recorder<R.State>()
        let observation = observe { event in
            if case .state(let state) = event {
                recorder.append(state)
            }
        }
        return (recorder, observation)
    }
}

/// Polls `condition` until it holds or `timeout` passes; for waits on other threads only, never
/// to measure time.
func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// The first `count` elements of `stream`.
func first<Element>(_ count: Int, of stream: AsyncStream<Element>) async -> [Element] {
    var elements: [Element] = []
    for await element in stream {
        elements.append(element)
        if elements.count == count { break }
    }
    return elements
}

/// Every element of `stream` until it finishes.
func collect<Element>(_ stream: AsyncStream<Element>) async -> [Element] {
    var elements: [Element] = []
    for await element in stream {
        elements.append(element)
    }
    return elements
}

struct TestError: Error, Equatable, CustomStringConvertible {
    var description: String { "TestError" }
}
