package import ReactorHubProtocol
/// The recent patch frames of an instance, by version, for resumes: at most `capacity`
/// frames (`history.patches`) and `maxBytes` of them (`history.maxBytes`); older ones go
/// first, and a resume from before what is held gets a snapshot. Each frame keeps the
/// checksum of its version when one was computed (PROTOCOL.md "Checksums"), so that a
/// client that asked for them can resume too.
package struct PatchHistory {
    /// A frame as held, with the `sum` of its version if it was computed.
    package struct Entry {
        package var frame: PatchFrame
        package var sum: String?
    }

    package let capacity: Int
    package let maxBytes: Int
    private var frames: [Entry] = []
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
    package var firstVersion: Int? { head < frames.count ? frames[head].frame.version : nil }

    /// Records the frame of the next version, and the checksum of that version when it was
    /// computed; versions must be consecutive.
    package mutating func append(_ frame: PatchFrame, sum: String? = nil) {
        guard capacity > 0, frame.message.count <= maxBytes else {
            removeAll()
            return
        }
        frames.append(Entry(frame: frame, sum: sum))
        bytes += frame.message.count
        while count > capacity || bytes > maxBytes {
            bytes -= frames[head].frame.message.count
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
        frames[max(head, frames.count - count)...].map(\.frame)
    }

    /// The frames after `version` up to `current`, or nil when some are no longer held.
    package func frames(after version: Int, current: Int) -> [PatchFrame]? {
        entries(after: version, current: current)?.map(\.frame)
    }

    /// The entries after `version` up to `current`, or nil when some are no longer held.
    package func entries(after version: Int, current: Int) -> ArraySlice<Entry>? {
        if version == current { return [] }
        guard let first = firstVersion, version + 1 >= first, current == frames[frames.count - 1].frame.version else { return nil }
        return frames[(head + (version + 1 - first))...]
    }

    /// The checksum recorded with the frame of `version`, if that frame is held and has one.
    package func sum(at version: Int) -> String? {
        guard let first = firstVersion, version >= first, version - first < count else { return nil }
        return frames[head + (version - first)].sum
    }
}
