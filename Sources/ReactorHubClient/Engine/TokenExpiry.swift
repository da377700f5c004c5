import ReactorHubJSON

/// Reads the `exp` claim of a JWT without verifying it (the server verifies), so the
/// client knows when to fetch a fresh one. `nil` for anything that is not a compact JWS
/// with a numeric `exp`.
enum TokenExpiry {
    /// Seconds since 1970 at which `token` expires.
    static func expiry(of token: String) -> Double? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = base64URLDecode(parts[1]),
              let claims = try? JSONParser().parse(payload)
        else { return nil }
        return claims["exp"]?.doubleValue
    }

    static func base64URLDecode(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.utf8 {
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"), UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "_"), UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="): continue
            default: return nil
            }
            buffer = buffer << 6 | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return bytes
    }

    /// When to fetch a fresh token: `lead` before expiry, or halfway there when the token
    /// lives less than twice `lead`. Seconds from `now`, never negative.
    static func refreshDelay(expiry: Double, now: Double, lead: Double) -> Double {
        let remaining = expiry - now
        guard remaining > 0 else { return 0 }
        return remaining >= 2 * lead ? remaining - lead : remaining / 2
    }
}
