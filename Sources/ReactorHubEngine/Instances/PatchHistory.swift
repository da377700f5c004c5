package import ReactorHubProtocol
/// The recent patch frames of an instance, by version, for resumes: at most `capacity`
/// frames (`history.patches`) and `maxBytes` of them (`history.maxBytes`); older ones go
/// first, and a resume from before what is held gets a snapshot.
package struct PatchHistory {
    package let capacity: Int
    package let maxBytes: Int
    private var frames: [PatchFrame] = []
    private var head = 0
    /// Bytes of the frames held.
    private(set) var bytes = 0

    package init(capacity: Int, maxBytes: Int = .max) {
        self.capacity = capacity
        self.maxBytes = maxBytes
    }

    /// Frames held.
    package var count: Int { frames.count - head }

    /// The oldest version held, or nil when none is.
    package var firstVersion: Int? { head < frames.count ? frames[head].version : nil }

    /// Records the frame of the next version; versions must be consecutive.
    package mutating func append(_ frame: PatchFrame) {
        guard capacity > 0, frame.message.count <= maxBytes else {
            removeAll()
            return
        }
        frames.append(frame)
        bytes += frame.message.count
        while count > capacity || bytes > maxBytes {
            bytes -= frames[head].message.count
            head += 1
        }
        // The frames dropped still hold their bytes until they are removed: once they are
        // as many as those held, so that what is kept stays within twice the bounds
        // (O(1) amortised per frame).
        if head > 0 && head * 2 >= frames.count {
            frames.removeFirst(head)
            head = 0
        }
    }

    /// Frames still stored, dropped ones included (tests hold the memory bound with it).
    package var storedCount: Int { frames.count }

    private mutating func removeAll() {
        frames = []
        head = 0
        bytes = 0
    }

    /// The last `count` frames held, oldest first.
    package func last(_ count: Int) -> [PatchFrame] {
        Array(frames[max(head, frames.count - count)...])
    }

    /// The frames after `version` up to `current`, or nil when some are no longer held.
    package func frames(after version: Int, current: Int) -> [PatchFrame]? {
        if version == current { return [] }
        guard let first = firstVersion, version + 1 >= first, current == frames[frames.count - 1].version else { return nil }
        let start = head + (version + 1 - first)
        return Array(frames[start...])
    }
}
