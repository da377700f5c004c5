import ReactorHubLocking
package import Reactor

/// The names of a kind's actions as a trap report prints them (`TrapLabel`s, made once per
/// name and never freed): an action's wire `type`, looked up per action.
package final class ActionLabels: Sendable {
    private let labels = Locked<[String: TrapLabel]>([:])

    package init() {}

    /// The label of the action named `name`; only for actions that decoded, so the names
    /// are the kind's own.
    package func label(named name: String) -> TrapLabel {
        labels.withLock { labels in
            if let label = labels[name] { return label }
            let label = TrapLabel(name)
            labels[name] = label
            return label
        }
    }
}
