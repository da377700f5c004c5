package import ReactorHubJSON
import ReactorHubLocking
package import Reactor

/// The names of a kind's actions as a trap report prints them (`TrapLabel`s, made once per
/// name and never freed): an action's wire `type`, looked up per action.
package final class ActionLabels: Sendable {
    private let labels = Locked<[String: TrapLabel]>([:])

    package init() {}

    /// The label of the action `payload` names (`"increase"` or `{"type":"increase",…}`);
    /// only for payloads that decoded, so the names are the kind's own.
    package func label(of payload: JSONValue) -> TrapLabel? {
        let name: String
        switch payload {
        case .string(let text): name = text
        case .object(let object):
            guard case .string(let text)? = object["type"] else { return nil }
            name = text
        default: return nil
        }
        return labels.withLock { labels in
            if let label = labels[name] { return label }
            let label = TrapLabel(name)
            labels[name] = label
            return label
        }
    }
}
