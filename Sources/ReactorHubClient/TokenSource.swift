/// Where the client gets the JWT it presents (PROTOCOL.md, "Identity and rights"): sent
/// as `Authorization: Bearer …` on every upgrade.
public enum TokenSource: Sendable {
    /// Always this token. It cannot be refreshed: once it expires or is revoked the server
    /// closes the connection (1008) and would refuse it on every reconnect, so the client
    /// closes for good instead (`unauthenticated`, with the server's reason).
    case `static`(String)
    /// A function that returns a valid token, called for the first connection, before the
    /// current token expires (the fresh one is sent in an `auth` message), and before
    /// reconnecting after the server refused or expired the last one.
    case provider(@Sendable () async throws -> String)
}
