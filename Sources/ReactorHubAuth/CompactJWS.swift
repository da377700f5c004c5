internal import ReactorHubJSON

/// A token split into its three parts (RFC 7515 §7.1), each decoded strictly; the header
/// and the payload stay bytes until they are read (the payload only after the signature
/// is checked).
struct CompactJWS {
    /// The longest token accepted, in bytes; longer ones are refused before any parsing.
    static let maximumLength = 8192

    /// The header and claims are small documents; deeper nesting is refused.
    static let parser = JSONParser(maximumDepth: 16, options: .rejectDuplicateKeys)

    /// The header's base64url text, as sent.
    let encodedHeader: ArraySlice<UInt8>
    /// The bytes the signature covers: `BASE64URL(header) "." BASE64URL(payload)`.
    let signingInput: [UInt8]
    let payload: [UInt8]
    let signature: [UInt8]
    private let headerBytes: [UInt8]

    init(_ token: String) throws(TokenRefusal) {
        let length = token.utf8.count
        guard length <= Self.maximumLength else {
            throw TokenRefusal(.malformed, "the token is \(length) bytes long, at most \(Self.maximumLength) are accepted")
        }
        let bytes = Array(token.utf8)
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot), let second = bytes[(first + 1)...].firstIndex(of: dot),
            !bytes[(second + 1)...].contains(dot)
        else {
            let parts = bytes.count { $0 == dot } + 1
            throw TokenRefusal(.malformed, "a token is three base64url parts joined by '.' (compact JWS), this one has \(parts)")
        }
        encodedHeader = bytes[..<first]
        headerBytes = try Self.decode(encodedHeader, "header")
        payload = try Self.decode(bytes[(first + 1)..<second], "payload")
        signature = try Self.decode(bytes[(second + 1)...], "signature")
        signingInput = Array(bytes[..<second])
    }

    /// The header read as a JSON object.
    func header() throws(TokenRefusal) -> JSONObject {
        try Self.object(headerBytes, "header")
    }

    /// The payload read as the claims object.
    func claims() throws(TokenRefusal) -> JSONObject {
        try Self.object(payload, "payload")
    }

    private static func decode(_ part: ArraySlice<UInt8>, _ name: String) throws(TokenRefusal) -> [UInt8] {
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
