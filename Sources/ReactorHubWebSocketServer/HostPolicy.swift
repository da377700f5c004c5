import Foundation

/// Which `Host` names the server answers (`security.allowedHosts`), against DNS
/// rebinding: a page from `evil.example` whose name the attacker re-points at this
/// machine sends `Host: evil.example:PORT` (and a matching `Origin`, so the same-origin
/// rule alone would let it in). Every HTTP request, upgrades included, with a name not
/// allowed is answered 421.
///
/// Names are compared without their port and without regard to case. An empty list means
/// the configured listening host (unless it is a wildcard), `localhost`, `127.0.0.1` and
/// `[::1]`; a list replaces that; `"*"` allows any name (behind a proxy that rewrites
/// `Host`). A request without `Host` (HTTP/1.0) is not affected: no browser sends one.
struct HostPolicy: Sendable, Equatable {
    /// The allowed names, lowercased, IPv6 addresses without brackets; nil: any.
    let names: Set<String>?

    init(allowed: [String], listeningOn host: String) {
        if allowed.contains("*") {
            names = nil
            return
        }
        var entries = allowed
        if entries.isEmpty {
            entries = ["localhost", "127.0.0.1", "[::1]"]
            switch ListenAddress(host) {
            case .any, .ipv4Any, .invalid: break
            case .ipv4, .ipv6: entries.append(host)
            }
        }
        names = Set(entries.map(Self.name(of:)))
    }

    /// Whether a request with this `Host` header is answered.
    func allows(host: String?) -> Bool {
        guard let names, let host else { return true }
        return names.contains(Self.name(of: host))
    }

    /// `Example.COM:8080` → `example.com`; `[::1]:80` and `::1` → `::1`.
    static func name(of host: String) -> String {
        let trimmed = host.trimmingCharacters(in: .whitespaces)
        if !trimmed.hasPrefix("["), trimmed.filter({ $0 == ":" }).count > 1 {
            return trimmed.lowercased()  // a bare IPv6 address, as the configuration may write it
        }
        return OriginPolicy.split(host: trimmed, defaultPort: 0).0
    }
}
