import ReactorHubClient

/// What the CLI adds to an error that the user can fix with one of its options: a TLS
/// handshake that failed (`--ca-file`, `--insecure`), a server that wants a token
/// (`--token`), a token the server refused or ended.
enum ErrorAdvice {
    /// `error` with the advice that fits it appended to its message (the code is kept).
    /// Without a token, a refusal for want of one says only how to give one: the server's
    /// sentence asks for an `auth` message, which a CLI user does not type.
    static func advised(_ error: HubClientError, for arguments: CLIArguments) -> HubClientError {
        guard let advice = advice(for: error, arguments) else { return error }
        if error.code == .unauthenticated, arguments.token == nil {
            return HubClientError(error.code, advice, reactor: error.reactor)
        }
        return HubClientError(error.code, error.message + "; " + advice, reactor: error.reactor)
    }

    static func advice(for error: HubClientError, _ arguments: CLIArguments) -> String? {
        switch error.code {
        case .cannotConnect where arguments.url.hasPrefix("wss://") && !arguments.insecure && mentionsTLS(error.message):
            return "the TLS handshake failed: for a self-signed certificate or one of your own CA, pass --ca-file PATH "
                + "(that certificate or CA as PEM), or --insecure to accept any certificate (testing only)"
        case .unauthenticated where arguments.token == nil:
            return "this server needs a token: pass --token TOKEN or set REACTORHUB_TOKEN "
                + "(reactorhub token --sub NAME --read 'KIND/*' mints one)"
        case .unauthenticated:
            return "the token given with --token (or REACTORHUB_TOKEN) is refused or no longer valid: pass a fresh one"
        default:
            return nil
        }
    }

    private static func mentionsTLS(_ message: String) -> Bool {
        ["SSL", "ssl", "TLS", "tls", "certificate"].contains { message.contains($0) }
    }
}
