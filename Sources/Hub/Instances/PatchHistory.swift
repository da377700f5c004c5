/// The last `capacity` patch frames of an instance, by version, for resumes.
struct PatchHistory {
    let capacity: Int
    private var frames: [PatchFrame] = []
    private var firstVersion = 1
    private var head = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Records the frame of `version`; versions must be consecutive.
    mutating func append(_ frame: PatchFrame) {
        guard capacity > 0 else { return }
        if frames.isEmpty {
            firstVersion = frame.version
        }
        if frames.count < capacity {
            frames.append(frame)
        } else {
            frames[head] = frame
            head = (head + 1) % capacity
            firstVersion += 1
        }
    }

    /// The frames after `version` up to `current`, or nil when some are no longer held.
    func frames(after version: Int, current: Int) -> [PatchFrame]? {
        if version == current { return [] }
        guard !frames.isEmpty, version + 1 >= firstVersion, current == firstVersion + frames.count - 1 else { return nil }
        return (version + 1...current).map { frames[(head + $0 - firstVersion) % frames.count] }
    }
}
