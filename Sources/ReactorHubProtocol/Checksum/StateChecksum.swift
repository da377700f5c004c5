package import ReactorHubJSON

/// The `sum` of PROTOCOL.md "Checksums (opt-in)": the first 16 lower-case hexadecimal
/// digits of the SHA-256 of a state's RFC 8785 canonical form (`JSONValue.canonicalized`).
/// One rule for the server and the Swift client; which SHA-256 computes it is theirs to
/// choose (the daemon's is libcrypto's, the client's `SHA256`).
package struct StateChecksum: Sendable {
    /// A SHA-256: the 32-byte digest of the bytes given.
    package typealias Digest = @Sendable (UnsafeRawBufferPointer) -> [UInt8]

    /// Hex digits a `sum` has.
    package static let digits = 16

    private let sha256: Digest

    /// A checksum computed with `sha256` (default: the portable `SHA256`).
    package init(sha256: @escaping Digest = { SHA256.digest($0) }) {
        self.sha256 = sha256
    }

    /// The sum of `state`.
    package func sum(of state: JSONValue) -> String {
        let canonical = state.canonicalized()
        let digest = canonical.withUnsafeBytes { sha256($0) }
        return Self.hex(digest.prefix(Self.digits / 2))
    }

    /// Lower-case hex of `bytes`.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(alphabet[Int(byte >> 4)])
            text.append(alphabet[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
