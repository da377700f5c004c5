import Foundation

/// An opening handshake as libwebsockets parsed it, checked against RFC 6455 section
/// 4.2.1 before the upgrade is allowed.
///
/// libwebsockets 4.1.6 answers 101 to any `Sec-WebSocket-Version` and to a key that is
/// not 16 bytes of base64, and drops the connection without a response when the key or
/// the `Connection: Upgrade` header is missing (docs/conformance.md). Section 4.2.2 asks
/// for an HTTP error instead: 400 for a malformed handshake, 426 with the versions the
/// server speaks for another version.
struct OpeningHandshake: Equatable {
    /// The HTTP answer to a handshake that must not be upgraded.
    struct Refusal: Equatable {
        var status: UInt32
        var body: String
        /// Extra response headers.
        var headers: [HTTPHeader] = []
    }

    /// The one version of the protocol this server speaks.
    static let version = "13"

    var isGet: Bool
    var host: String?
    var connection: String?
    var key: String?
    var version: String?

    /// Why the handshake is refused, or nil when it may be upgraded.
    var refusal: Refusal? {
        guard isGet else { return Refusal(status: 400, body: "a WebSocket handshake is a GET request\n") }
        guard let host, !host.isEmpty else { return Refusal(status: 400, body: "the handshake has no Host header\n") }
        let connectionTokens = (connection ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard connectionTokens.contains("upgrade") else {
            return Refusal(status: 400, body: "the handshake needs the header 'Connection: Upgrade'\n")
        }
        let versionHeader = HTTPHeader(name: "sec-websocket-version:", value: Self.version)
        guard let version = version?.trimmingCharacters(in: .whitespaces), !version.isEmpty else {
            return Refusal(
                status: 400,
                body: "the handshake has no Sec-WebSocket-Version; this server speaks \(Self.version)\n",
                headers: [versionHeader]
            )
        }
        guard version == Self.version else {
            return Refusal(
                status: 426,
                body: "WebSocket version '\(version)' is not supported; this server speaks \(Self.version)\n",
                headers: [versionHeader]
            )
        }
        guard let key = key?.trimmingCharacters(in: .whitespaces), !key.isEmpty else {
            return Refusal(status: 400, body: "the handshake has no Sec-WebSocket-Key\n")
        }
        guard key.utf8.count == 24, Data(base64Encoded: key)?.count == 16 else {
            return Refusal(status: 400, body: "Sec-WebSocket-Key must be 16 bytes in base64 (24 characters)\n")
        }
        return nil
    }
}
