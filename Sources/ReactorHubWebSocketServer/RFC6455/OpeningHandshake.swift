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
    ///
    /// Read as bytes: every upgrade passes here, and Foundation's `trimmingCharacters` and
    /// `Data(base64Encoded:)` cost about 8 µs of the 60 µs a connection costs the server.
    var refusal: Refusal? {
        guard isGet else { return Refusal(status: 400, body: "a WebSocket handshake is a GET request\n") }
        guard let host, !host.isEmpty else { return Refusal(status: 400, body: "the handshake has no Host header\n") }
        let connectionTokens = (connection ?? "").utf8.split(separator: UInt8(ascii: ","))
        guard connectionTokens.contains(where: { Self.isUpgrade($0.trimmingOptionalWhitespace) }) else {
            return Refusal(status: 400, body: "the handshake needs the header 'Connection: Upgrade'\n")
        }
        let versionHeader = HTTPHeader(name: "sec-websocket-version:", value: Self.version)
        guard let version = version.map({ $0.utf8[...].trimmingOptionalWhitespace }), !version.isEmpty else {
            return Refusal(
                status: 400,
                body: "the handshake has no Sec-WebSocket-Version; this server speaks \(Self.version)\n",
                headers: [versionHeader]
            )
        }
        guard version.elementsEqual(Self.version.utf8) else {
            return Refusal(
                status: 426,
                body: "WebSocket version '\(String(Substring(version)))' is not supported; this server speaks \(Self.version)\n",
                headers: [versionHeader]
            )
        }
        guard let key = key.map({ $0.utf8[...].trimmingOptionalWhitespace }), !key.isEmpty else {
            return Refusal(status: 400, body: "the handshake has no Sec-WebSocket-Key\n")
        }
        guard Self.isSixteenBytesOfBase64(key) else {
            return Refusal(status: 400, body: "Sec-WebSocket-Key must be 16 bytes in base64 (24 characters)\n")
        }
        return nil
    }

    /// `upgrade` in any case.
    private static func isUpgrade(_ token: Substring.UTF8View) -> Bool {
        token.count == 7 && zip(token, "upgrade".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// 16 bytes in base64: 22 characters of the alphabet and `==` (what Foundation's decoder
    /// takes for 16 bytes in 24 characters; like it, the unused low bits are not checked).
    private static func isSixteenBytesOfBase64(_ key: Substring.UTF8View) -> Bool {
        guard key.count == 24, key.suffix(2).elementsEqual("==".utf8) else { return false }
        return key.prefix(22).allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"): true
            default: false
            }
        }
    }
}
