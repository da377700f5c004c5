import ReactorHubJSON

/// What a client holds of one reactor and the rules that keep it right (PROTOCOL.md,
/// "State, versions and patches"): a value type that says what to do, so the rules are
/// tested without sockets. The engine carries out its answers.
struct Replica: Sendable {
    /// What became of a patch frame.
    enum PatchOutcome: Equatable {
        /// Applied: the replica is at the patch's version.
        case applied
        /// Already applied (its version is not ahead of ours): ignored.
        case stale
        /// Something was missed: re-join with `since` (the replica keeps what it has).
        case gap
        /// It does not apply to our copy (which a conforming server never sends): drop the
        /// copy's claim to a history and re-join without `since`.
        case broken(String)
        /// No state yet (the join's answer has not come): ignored.
        case notReady
    }

    /// What to do with a `resumed` reply.
    enum ResumeOutcome: Equatable {
        /// Keep the state; the missed patches follow.
        case accept
        /// The server's history is not ours (another epoch, or behind us): join afresh.
        case rejoinWithoutSince
    }

    /// The state, once the first snapshot came.
    private(set) var state: JSONValue?
    private(set) var epoch: String?
    private(set) var version = 0

    /// Whether a snapshot (or resume) was ever applied.
    var hasState: Bool { state != nil }

    /// `since` for a resuming join: the epoch and version held, when there is a state.
    var resumePoint: (epoch: String, version: Int)? {
        guard state != nil, let epoch else { return nil }
        return (epoch, version)
    }

    /// A snapshot replaces everything.
    mutating func applySnapshot(state: JSONValue, epoch: String, version: Int) {
        self.state = state
        self.epoch = epoch
        self.version = version
    }

    /// A `resumed` reply: accepted when it continues our history (same epoch, not behind).
    func resume(epoch: String, version: Int) -> ResumeOutcome {
        guard state != nil, epoch == self.epoch, version >= self.version else { return .rejoinWithoutSince }
        return .accept
    }

    /// A patch whose base is `base` (or `version - 1`) applies only to the version held.
    mutating func applyPatch(version: Int, base: Int?, patch: JSONValue) -> PatchOutcome {
        guard let current = state else { return .notReady }
        let base = base ?? version - 1
        guard base == self.version else {
            return version > self.version ? .gap : .stale
        }
        do {
            state = try JSONPatch.apply(patch, to: current)
            self.version = version
            return .applied
        } catch {
            return .broken(error.description)
        }
    }
}
