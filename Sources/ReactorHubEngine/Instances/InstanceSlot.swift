package import ReactorHubProtocol
package import ReactorHubJSON
package import Reactor
import ReactorHubLocking

/// Where the hub keeps an instance from its first join on: while it loads (off the
/// service thread: store reads and the initial encode can wait), the requests sent to it
/// queue here in arrival order; once it is ready they are replayed, in that order, before
/// any later request reaches the instance directly.
package final class InstanceSlot: Sendable {
    /// A request that reached the slot while its instance was loading.
    package enum Pending: Sendable {
        /// `checksums`: the join asked for a `sum` on the frames (PROTOCOL.md "Checksums").
        case join(ConnectionOutput, ref: Ref?, since: ClientMessage.ResumePoint?, sender: Sender, checksums: Bool = false)
        case action(ConnectionOutput, payload: ActionPayload, id: String?, ref: Ref?, receivedAt: ContinuousClock.Instant, sender: Sender)
        /// A presence state (compact JSON; nil clears it) of a user.
        case presence(ConnectionOutput, user: String?, state: [UInt8]?, ref: Ref?)
        /// `reply`: answer with `left` (a `leave`), or silently (the connection closed).
        case leave(ConnectionOutput, ref: Ref?, reply: Bool)
        /// A look at the instance once it is ready (an HTTP read), or at why it could not be.
        case visit(@Sendable (Result<any HubInstance, ProtocolError>) -> Void)
    }

    /// What the router should do with a request.
    package enum Route {
        /// The instance is ready: hand the request to it.
        case ready(any HubInstance)
        /// Queued: it is replayed when the instance is ready.
        case queued
        /// The instance could not be created.
        case failed(ProtocolError)
    }

    private enum Phase {
        case loading([Pending])
        case ready(any HubInstance)
        case failed(ProtocolError)
    }

    package let address: ReactorAddress
    package let stream: StreamID
    /// Whom the instance counts against (`limits.maxInstancesPerUser`): who created it.
    package let creator: String
    private let phase = Locked<Phase>(.loading([]))

    package init(address: ReactorAddress, stream: StreamID, creator: String = "") {
        self.address = address
        self.stream = stream
        self.creator = creator
    }

    /// The instance, once ready.
    package var instance: (any HubInstance)? {
        phase.withLock { phase in
            if case .ready(let instance) = phase { return instance }
            return nil
        }
    }

    /// Puts `replacement` in place of a ready instance (an admin reset); nil when the slot
    /// is not ready. Requests routed from now on reach the replacement.
    package func replace(with replacement: any HubInstance) -> (any HubInstance)? {
        phase.withLock { phase in
            guard case .ready(let current) = phase else { return nil }
            phase = .ready(replacement)
            return current
        }
    }

    /// Routes `request`: queued while loading, else the instance (or the failure).
    package func route(_ request: Pending) -> Route {
        phase.withLock { phase in
            switch phase {
            case .loading(var queue):
                queue.append(request)
                phase = .loading(queue)
                return .queued
            case .ready(let instance):
                return .ready(instance)
            case .failed(let error):
                return .failed(error)
            }
        }
    }

    /// Settles the load and replays the queued requests with `replay`, in order, before
    /// any later request can reach the instance (they queue behind the lock meanwhile).
    package func complete(_ result: Result<any HubInstance, ProtocolError>, replay: (Route, Pending) -> Void) {
        phase.withLock { phase in
            guard case .loading(let queue) = phase else { return }
            let route: Route
            switch result {
            case .success(let instance):
                route = .ready(instance)
                phase = .ready(instance)
            case .failure(let error):
                route = .failed(error)
                phase = .failed(error)
            }
            for request in queue {
                replay(route, request)
            }
        }
    }
}
