/// The permessage-deflate negotiation (RFC 7692 section 7.1) of an upgrade, as a value:
/// the client's `Sec-WebSocket-Extensions` in, the server's answer out (PROTOCOL.md
/// "Transport").
///
/// The server compresses each broadcast frame once for every subscriber, so it always
/// answers `server_no_context_takeover`, and declines an offer whose
/// `server_max_window_bits` is below 15 (the shared compressor's window; zlib cannot
/// compress with 8 bits at all). It also answers `client_no_context_takeover`, so that it
/// holds no inflate state between a client's messages, and, when the client allows it,
/// `client_max_window_bits` = `inflateWindowBits` to bound the window while it inflates
/// one. The first acceptable offer wins; an offer with an unknown, repeated or malformed
/// parameter is declined, and without an acceptable one the answer has no extension.
struct DeflateNegotiation: Equatable {
    /// The window the server asks clients to compress within, when they let it choose.
    static let inflateWindowBits = 10

    /// The `Sec-WebSocket-Extensions` value to answer with.
    var response: String
    /// The window the client compresses within: what the server's inflater needs.
    var clientWindowBits: Int

    /// The agreement on `offers` (the request's header), or nil to answer without it.
    init?(offers header: String?, inflateWindowBits: Int = DeflateNegotiation.inflateWindowBits) {
        guard let header else { return nil }
        for offer in Self.extensions(in: header) where offer.name.lowercased() == "permessage-deflate" {
            if let agreement = Self.agreement(on: offer.parameters, inflateWindowBits: inflateWindowBits) {
                self = agreement
                return
            }
        }
        return nil
    }

    private init(response: String, clientWindowBits: Int) {
        self.response = response
        self.clientWindowBits = clientWindowBits
    }

    /// The answer to one offer's parameters, or nil when it must be declined.
    private static func agreement(on parameters: [(name: String, value: String?)], inflateWindowBits: Int) -> DeflateNegotiation? {
        var seen: Set<String> = []
        var serverWindowOffered = false
        var clientWindow: Int?
        var clientWindowOffered = false
        for (name, value) in parameters {
            let name = name.lowercased()
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else { return nil }
            case "server_max_window_bits":
                guard let bits = value.flatMap(windowBits), bits == 15 else { return nil }
                serverWindowOffered = true
            case "client_max_window_bits":
                if let value {
                    guard let bits = windowBits(value) else { return nil }
                    clientWindow = bits
                }
                clientWindowOffered = true
            default:
                return nil
            }
        }
        var response = "permessage-deflate; server_no_context_takeover; client_no_context_takeover"
        if serverWindowOffered { response += "; server_max_window_bits=15" }
        var inflateWindow = 15
        if clientWindowOffered {
            inflateWindow = min(clientWindow ?? 15, inflateWindowBits)
            response += "; client_max_window_bits=\(inflateWindow)"
        }
        return DeflateNegotiation(response: response, clientWindowBits: inflateWindow)
    }

    /// A window size parameter: 8 to 15, decimal, no leading zero.
    private static func windowBits(_ text: String) -> Int? {
        guard text.count <= 2, text.first != "0", text.allSatisfy(\.isASCII), let bits = Int(text), (8...15).contains(bits) else {
            return nil
        }
        return bits
    }

    /// The extensions of a header (RFC 6455 section 9.1): `name; param; param=value, …`,
    /// values as tokens or quoted strings. Malformed parts become parameters no offer accepts.
    static func extensions(in header: String) -> [(name: String, parameters: [(name: String, value: String?)])] {
        var result: [(name: String, parameters: [(name: String, value: String?)])] = []
        for element in split(header, on: ",") {
            let parts = split(element, on: ";").map(trimmed)
            guard let name = parts.first, !name.isEmpty else { continue }
            let parameters = parts.dropFirst().map { part -> (name: String, value: String?) in
                guard let equals = part.firstIndex(of: "=") else { return (part, nil) }
                var value = trimmed(String(part[part.index(after: equals)...]))
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                    // A quoted string: its quoted pairs (`\x`) stand for `x`.
                    var unquoted = ""
                    var escaped = false
                    for character in value.dropFirst().dropLast() {
                        if !escaped && character == "\\" {
                            escaped = true
                            continue
                        }
                        escaped = false
                        unquoted.append(character)
                    }
                    value = unquoted
                }
                return (trimmed(String(part[..<equals])), value)
            }
            result.append((name, parameters))
        }
        return result
    }

    /// `text` without HTTP's optional whitespace around it.
    private static func trimmed(_ text: String) -> String {
        String(Substring(text.utf8[...].trimmingOptionalWhitespace))
    }

    /// `text` split on `separator` outside quoted strings.
    private static func split(_ text: String, on separator: Character) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator && !quoted {
                pieces.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        pieces.append(current)
        return pieces
    }
}

