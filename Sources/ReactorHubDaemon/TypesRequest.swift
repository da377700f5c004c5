/// `reactorhub types --url ws://HOST:PORT/ws [--token JWT]`: TypeScript declarations for the
/// kinds a running daemon describes in its `hello` (`KindDeclarations`), printed on standard
/// output for the web client's package (CLIENTS.md "Types from the server").
public struct TypesRequest: Sendable, Equatable {
    /// `--url`: the daemon's WebSocket URL, `ws://` or `wss://`.
    public var url: String
    /// `--token`: a JWT sent as `Authorization: Bearer` for a daemon with `auth`.
    public var token: String?

    /// A request for the daemon at `url`.
    public init(url: String, token: String? = nil) {
        self.url = url
        self.token = token
    }

    /// The options of `types`, for "did you mean".
    static let options = ["--url", "--token", "--help"]
}
