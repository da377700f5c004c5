// Throughput of one ReactorRuntime with a trivial reduce and one observer attached (as the hub
// attaches one): actions sent, transformed, mutated, reduced and observed per second.
//
// Method: for each scenario, a fresh runtime; `senders` threads (DispatchQueue.concurrentPerform)
// each send `actions / senders` actions as fast as they can; the clock stops when
// `waitUntilIdle()` returns and the final state is checked to equal `actions`. One warm-up run,
// then `repetitions` measured runs; the median rate is printed with the min and max.
// Build and run with: swift run -c release reactor-bench [name filter]

import Dispatch
import Reactor

final class BenchReactor: Reactor {
    enum Action: Sendable {
        /// `mutate` returns `.just`: reduced in the same drain as the action.
        case sync
        /// `mutate` returns `.run { send in await send(...) }`: one task and one hop back.
        case async
    }

    enum Mutation: Sendable {
        case increment
    }

    typealias State = Int

    let initialState = 0

    func mutate(action: Action) -> Effect<Mutation> {
        switch action {
        case .sync: .just(.increment)
        case .async: .run { send in await send(.increment) }
        }
    }

    func reduce(state: Int, mutation: Mutation) -> Int {
        state + 1
    }
}

struct Scenario {
    var name: String
    var action: BenchReactor.Action
    var actions: Int
    var senders: Int
}

/// Sends `scenario.actions` actions and returns the elapsed time until the runtime is idle.
func measure(_ scenario: Scenario) async -> Duration {
    let runtime = ReactorRuntime(reactor: BenchReactor())
    let observation = runtime.observe { _ in }
    let perSender = scenario.actions / scenario.senders
    let action = scenario.action
    let start = ContinuousClock.now
    DispatchQueue.concurrentPerform(iterations: scenario.senders) { _ in
        for _ in 0..<perSender {
            runtime.send(action)
        }
    }
    await runtime.waitUntilIdle()
    let elapsed = ContinuousClock.now - start
    precondition(runtime.currentState == perSender * scenario.senders, "lost actions")
    observation.cancel()
    return elapsed
}

func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
}

func format(_ rate: Double) -> String {
    let thousands = Int((rate / 1_000).rounded())
    return "\(thousands)k/s"
}

let repetitions = 7
let scenarios = [
    Scenario(name: "sync .just, 1 sender", action: .sync, actions: 1_000_000, senders: 1),
    Scenario(name: "sync .just, 4 senders", action: .sync, actions: 1_000_000, senders: 4),
    Scenario(name: "async .run, 1 sender", action: .async, actions: 200_000, senders: 1),
    Scenario(name: "async .run, 4 senders", action: .async, actions: 200_000, senders: 4),
]

let filter = CommandLine.arguments.dropFirst().first
print("reactor-bench: \(repetitions) runs per scenario after 1 warm-up, median (min-max) actions/s")
for scenario in scenarios where filter.map(scenario.name.contains) ?? true {
    _ = await measure(scenario)
    var rates: [Double] = []
    for _ in 0..<repetitions {
        rates.append(Double(scenario.actions) / seconds(await measure(scenario)))
    }
    rates.sort()
    let median = rates[rates.count / 2]
    let perAction = 1e9 / median
    let name = scenario.name + String(repeating: " ", count: max(0, 24 - scenario.name.count))
    print("\(name) \(scenario.actions) actions: \(format(median)) (\(format(rates[0]))-\(format(rates[rates.count - 1]))), \(Int(perAction.rounded())) ns/action")
}
