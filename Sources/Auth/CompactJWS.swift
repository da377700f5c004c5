internal import JSON

/// A token split into its three parts (RFC 7515 §7.1), each decoded strictly, and its
/// header read; the payload stays bytes until the signature is checked.
struct CompactJWS {
    /// The longest token accepted, in bytes; longer ones are refused before any parsing.
    static let maximumLength = 8192

    /// The header and claims are small documents; deeper nesting is refused.
    static let parser = JSONParser(maximumDepth: 16, options: .rejectDuplicateKeys)

    let header: JSONObject
    /// The bytes the signature covers: `BASE64URL(header) "." BASE64URL(payload)`.
    let signingInput: [UInt8]
    let payload: [UInt8]
    let signature: [UInt8]

    init(_ token: String) throws(TokenRefusal) {
        let bytes = token.utf8
        guard bytes.count <= Self.maximumLength else {
            throw TokenRefusal(.malformed, "the token is \(bytes.count) bytes long, at most \(Self.maximumLength) are accepted")
        }
        let parts = Substring(token).utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw TokenRefusal(.malformed, "a token is three base64url parts joined by '.' (compact JWS), this one has \(parts.count)")
        }
        let headerBytes = try Self.decode(parts[0], "header")
        payload = try Self.decode(parts[1], "payload")
        signature = try Self.decode(parts[2], "signature")
        signingInput = Array(bytes[..<parts[1].endIndex])
        header = try Self.object(headerBytes, "header")
    }

    /// The payload read as the claims object.
    func claims() throws(TokenRefusal) -> JSONObject {
        try Self.object(payload, "payload")
    }

    private static func decode(_ part: Substring.UTF8View, _ name: String) throws(TokenRefusal) -> [UInt8] {
        guard let bytes = Base64URL.decode(part) else {
            throw TokenRefusal(.malformed, "the \(name) is not canonical base64url (A-Z a-z 0-9 - _, no '=' padding)")
        }
        return bytes
    }

    private static func object(_ bytes: [UInt8], _ name: String) throws(TokenRefusal) -> JSONObject {
        let value: JSONValue
        do {
            value = try parser.parse(bytes)
        } catch {
            throw TokenRefusal(.malformed, "the \(name) is not valid JSON: \(error.message)")
        }
        guard let object = value.objectValue else {
            throw TokenRefusal(.malformed, "the \(name) is \(value.kind.phrase), expected a JSON object")
        }
        return object
    }
}
