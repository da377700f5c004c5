/// One of the two rights of PROTOCOL.md "Identity and rights".
///
/// `read` allows join (and resume) and setting presence; `act` allows actions on a reactor
/// already joined. Neither implies the other.
public enum Right: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Join, resume, presence.
    case read
    /// Dispatch actions.
    case act

    /// The right's name as in the `rh` claim: `read` or `act`.
    public var description: String { rawValue }
}
