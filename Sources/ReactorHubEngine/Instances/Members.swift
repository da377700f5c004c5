package import Reactor
import ReactorHubLocking
package import ReactorHubProtocol

/// Who joined an instance on this node, by connection: what its joins and leaves tell the
/// reactor (`Membership`), at most once each per connection.
package final class Members: Sendable {
    private let senders = Locked<[ConnectionID: Sender]>([:])

    package init() {}

    /// Records `sender` for `id`; its `.joined`, or nil when `id` was there already.
    package func join(_ id: ConnectionID, _ sender: Sender) -> Membership? {
        senders.withLock { senders in
            guard senders[id] == nil else { return nil }
            senders[id] = sender
            return Membership(.joined, sender)
        }
    }

    /// Forgets `id`; its `.left`, or nil when it was not there.
    package func leave(_ id: ConnectionID) -> Membership? {
        senders.withLock { senders in
            senders.removeValue(forKey: id).map { Membership(.left, $0) }
        }
    }
}
