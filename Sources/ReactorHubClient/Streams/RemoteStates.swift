/// The states of a remote reactor as an `AsyncSequence`: the current one at once, then
/// each new one. Its buffer keeps the latest `capacity` states (1 unless asked otherwise):
/// a reader that falls behind skips to the newest state, and a sequence that is never read
/// holds one state, whatever the server sends. The sequence ends when the reactor is left
/// or the client closes.
///
/// It is subscribed from the moment it is created (not when the first `next()` runs) and
/// unsubscribed when it and its iterator are released. Read it from one task at a time.
public struct RemoteStates<Element: Sendable>: AsyncSequence, Sendable {
    final class Subscription: Sendable {
        let slot: RevisionSlot
        let publisher: ReplicaPublisher
        let token: Int
        let transform: @Sendable (Revision) -> Element?

        init(publisher: ReplicaPublisher, capacity: Int, changesOnly: Bool, transform: @escaping @Sendable (Revision) -> Element?) {
            self.slot = RevisionSlot(capacity: capacity)
            self.publisher = publisher
            self.transform = transform
            self.token = publisher.add(slot, changesOnly: changesOnly)
        }

        deinit {
            publisher.removeSlot(token)
        }
    }

    let subscription: Subscription

    /// `changesOnly`: only revisions that change the shown state or the pulses (state
    /// streams); otherwise every revision (revision streams).
    init(publisher: ReplicaPublisher, capacity: Int, changesOnly: Bool, transform: @escaping @Sendable (Revision) -> Element?) {
        subscription = Subscription(publisher: publisher, capacity: capacity, changesOnly: changesOnly, transform: transform)
    }

    /// How many states wait to be read (at most the capacity).
    public var buffered: Int { subscription.slot.buffered }

    public func makeAsyncIterator() -> Iterator {
        Iterator(subscription: subscription)
    }

    /// Reads the sequence.
    public struct Iterator: AsyncIteratorProtocol {
        let subscription: Subscription

        public mutating func next() async -> Element? {
            while let revision = await subscription.slot.next() {
                // A revision whose state does not decode (logged by the transform) is skipped.
                if let element = subscription.transform(revision) { return element }
            }
            return nil
        }
    }
}
