import Foundation

/// The time rules of a token (RFC 7519 §4.1.4-6), with leeway for clock skew.
///
/// Expired when `exp + leeway <= now`; not yet valid when `nbf - leeway > now`, or when
/// `iat - leeway > now` (a token cannot have been issued in the future, and a future `iat`
/// would otherwise outlive a revocation).
struct TokenTimes {
    let leewaySeconds: Int

    func check(_ claims: TokenClaims, now: Double) throws(TokenRefusal) {
        let leeway = Double(leewaySeconds)
        if claims.expiresAt + leeway <= now {
            throw TokenRefusal(
                .expired,
                "the token expired at \(Self.shown(claims.expiresAt)) (exp), it is now \(Self.shown(now)), with \(leewaySeconds) s of leeway"
            )
        }
        if let notBefore = claims.notBefore, notBefore - leeway > now {
            throw TokenRefusal(
                .notYetValid,
                "the token is valid from \(Self.shown(notBefore)) (nbf), it is now \(Self.shown(now)), with \(leewaySeconds) s of leeway"
            )
        }
        if let issuedAt = claims.issuedAt, issuedAt - leeway > now {
            throw TokenRefusal(
                .notYetValid,
                "the token says it was issued at \(Self.shown(issuedAt)) (iat), in the future: it is now \(Self.shown(now)), with \(leewaySeconds) s of leeway"
            )
        }
    }

    /// Seconds since 1970 and the same time in ISO 8601, e.g. `1767225600 (2026-01-01T00:00:00Z)`.
    static func shown(_ seconds: Double) -> String {
        let whole = seconds.rounded(.down)
        let number = whole == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
        guard abs(seconds) < 1e11 else { return number }
        return "\(number) (\(Date(timeIntervalSince1970: seconds).formatted(.iso8601)))"
    }
}
