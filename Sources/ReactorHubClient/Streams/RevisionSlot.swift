import ReactorHubLocking

/// The buffer between a reactor's publisher and one reader of its states: it keeps at
/// most `capacity` revisions, dropping the oldest, so a reader that never reads costs one
/// revision (with the default capacity of 1: the latest state only). One reader waits at a
/// time.
final class RevisionSlot: Sendable {
    private struct Contents {
        /// Unread revisions from `head` on; read or dropped ones are set to nil at once,
        /// so nothing but the unread revisions is kept alive, and reads are O(1).
        var buffer: [Revision?] = []
        var head = 0
        var waiter: CheckedContinuation<Revision?, Never>?
        var isFinished = false
        /// The newest revision offered: an older one arriving late (a new reader gets the
        /// latest while the publisher moves on) is dropped.
        var lastNumber: UInt64 = 0

        /// Drops what was read once it is most of the array (amortised O(1)).
        mutating func compact() {
            if head == buffer.count {
                buffer.removeAll(keepingCapacity: buffer.count <= 64)
                head = 0
            } else if head >= 64 && head * 2 >= buffer.count {
                buffer.removeFirst(head)
                head = 0
            }
        }
    }

    let capacity: Int
    private let contents = Locked(Contents())

    init(capacity: Int) {
        precondition(capacity >= 1)
        self.capacity = capacity
    }

    /// How many revisions wait to be read (tests).
    var buffered: Int { contents.withLock { $0.buffer.count - $0.head } }

    /// Hands `revision` to the waiting reader, or buffers it.
    func offer(_ revision: Revision) {
        let waiter = contents.withLock { contents -> CheckedContinuation<Revision?, Never>? in
            guard !contents.isFinished, revision.number > contents.lastNumber else { return nil }
            contents.lastNumber = revision.number
            if let waiter = contents.waiter {
                contents.waiter = nil
                return waiter
            }
            contents.buffer.append(revision)
            if contents.buffer.count - contents.head > capacity {
                contents.buffer[contents.head] = nil
                contents.head += 1
            }
            contents.compact()
            return nil
        }
        waiter?.resume(returning: revision)
    }

    /// No revision follows; the reader gets what is buffered, then nil.
    func finish() {
        let waiter = contents.withLock { contents -> CheckedContinuation<Revision?, Never>? in
            contents.isFinished = true
            defer { contents.waiter = nil }
            return contents.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next revision; nil once finished (or when the waiting task is cancelled).
    func next() async -> Revision? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Revision?, Never>) in
                let ready = contents.withLock { contents -> Revision?? in
                    if contents.head < contents.buffer.count {
                        let revision = contents.buffer[contents.head]
                        contents.buffer[contents.head] = nil
                        contents.head += 1
                        contents.compact()
                        return .some(revision)
                    }
                    if contents.isFinished || Task.isCancelled { return .some(nil) }
                    precondition(contents.waiter == nil, "a state stream is read by one task at a time")
                    contents.waiter = continuation
                    return .none
                }
                if let ready {
                    continuation.resume(returning: ready)
                }
            }
        } onCancel: {
            let waiter = contents.withLock { contents -> CheckedContinuation<Revision?, Never>? in
                defer { contents.waiter = nil }
                return contents.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
