import ReactorHubLocking
import Reactor
import ReactorHubKinds

/// The seed's `ViewController.bind(reactor:)` (seed 004) without UIKit: the same three
/// bindings, each writing into what a test can read back.
///
/// ```swift
/// increaseButton.rx.tap.map { Reactor.Action.increase }.bind(to: reactor.action)
/// reactor.state.map { $0.value }.distinctUntilChanged().map { "\($0)" }.bind(to: valueLabel.rx.text)
/// reactor.state.map { $0.isLoading }.distinctUntilChanged().bind(to: activityIndicatorView.rx.isAnimating)
/// reactor.pulse(\.$alertMessage).compactMap { $0 }.subscribe(onNext: { present(alert($0)) })
/// ```
///
/// It binds to any reactor whose state and actions are the counter's: the local
/// `CounterReactor`, or a `RemoteReactorBridge` of `counter/…`.
final class CounterView<R: Reactor>: Sendable where R.State == CounterReactor.State, R.Action == CounterReactor.Action {
    /// Every text the value label was given, in order.
    let valueLabel = Locked<[String]>([])
    /// Every value of the activity indicator's `isAnimating`, in order.
    let activityIndicator = Locked<[Bool]>([])
    /// Every alert presented, in order.
    let alerts = Locked<[String]>([])
    private let bindings = Locked<[Task<Void, Never>]>([])
    private let reactor = Locked<ReactorRuntime<R>?>(nil)

    deinit {
        bindings.withLock { $0.forEach { $0.cancel() } }
    }

    // Called when the new value is assigned to 'self.reactor'
    func bind(reactor: ReactorRuntime<R>) {
        self.reactor.withLock { $0 = reactor }
        let valueLabel = valueLabel, activityIndicator = activityIndicator, alerts = alerts
        let states = reactor.states
        let loading = reactor.states
        let pulses = reactor.pulse(\.$alertMessage)
        bindings.withLock { bindings in
            // State
            bindings.append(Task {
                var last: Int?
                for await value in states.map(\.value) where value != last {   // distinctUntilChanged
                    last = value
                    valueLabel.withLock { $0.append("\(value)") }
                }
            })
            bindings.append(Task {
                var last: Bool?
                for await isLoading in loading.map(\.isLoading) where isLoading != last {
                    last = isLoading
                    activityIndicator.withLock { $0.append(isLoading) }
                }
            })
            bindings.append(Task {
                for await message in pulses.compactMap({ $0 }) {
                    alerts.withLock { $0.append(message) }
                }
            })
        }
    }

    // Action
    func tapIncreaseButton() {
        reactor.withLock { $0 }?.send(.increase)
    }

    func tapDecreaseButton() {
        reactor.withLock { $0 }?.send(.decrease)
    }

    /// What the view shows: labels, indicator values, alerts.
    var shown: (labels: [String], spinner: [Bool], alerts: [String]) {
        (valueLabel.withLock { $0 }, activityIndicator.withLock { $0 }, alerts.withLock { $0 })
    }
}
