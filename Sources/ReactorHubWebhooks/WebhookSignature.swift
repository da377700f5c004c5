/// Signs a message under a key with HMAC-SHA256: the daemon hands the one of
/// `ReactorHubAuth` (libcrypto), so this module holds no cryptography of its own.
public typealias WebhookSigner = @Sendable (_ message: [UInt8], _ key: [UInt8]) -> [UInt8]?

/// `X-ReactorHub-Signature` (API.md "Webhooks"): `sha256=HEX`, lower-case hex of the
/// HMAC-SHA256 under the receiver's secret of `TIMESTAMP + "." + BODY`, so that a receiver
/// can verify the body and refuse replays of old timestamps.
enum WebhookSignature {
    /// The header's value for `body` sent at `timestamp` (Unix seconds); nil when signing failed.
    static func header(body: [UInt8], timestamp: Int, secret: [UInt8], sign: WebhookSigner) -> String? {
        guard let mac = sign(Array("\(timestamp).".utf8) + body, secret) else { return nil }
        return "sha256=" + hex(mac)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
