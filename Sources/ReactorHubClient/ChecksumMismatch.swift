/// A reactor's state that did not match the server's checksum (`HubClientOptions.checksums`,
/// PROTOCOL.md "Checksums"): the copy diverged (a patch applied wrongly, a bug), and the
/// client joined the reactor afresh.
public struct ChecksumMismatch: Sendable, Equatable {
    /// The reactor's address.
    public let reactor: String
    /// The version whose checksum it was.
    public let version: Int
    /// The server's `sum`.
    public let expected: String
    /// The checksum of the copy the client held.
    public let computed: String
}
