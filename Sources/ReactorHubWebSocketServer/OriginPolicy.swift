import Foundation

/// The Origin rule of PROTOCOL.md: an upgrade whose `Origin` is listed (or `*` is), or is
/// the server's own origin (its host and port equal the `Host` header; the scheme only
/// supplies the default port), is allowed;
/// anything else, `null` included, is refused. Upgrades without `Origin` never get here.
struct OriginPolicy: Sendable {
    let allowed: [String]
    /// Whether the server speaks TLS (its own origin is then `https://`).
    let secure: Bool

    func allows(origin: String, host: String?) -> Bool {
        if allowed.contains("*") { return true }
        let normalized = Self.normalize(origin)
        if allowed.contains(where: { Self.normalize($0) == normalized }) { return true }
        guard let host, let parsed = URLComponents(string: origin), let scheme = parsed.scheme?.lowercased(),
              let rawHost = parsed.host?.lowercased(), scheme == "http" || scheme == "https"
        else { return false }
        let originHost = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let originPort = parsed.port ?? (scheme == "https" ? 443 : 80)
        let (hostName, hostPort) = Self.split(host: host, defaultPort: secure ? 443 : 80)
        return originHost == hostName && originPort == hostPort
    }

    /// `HTTP://Example.com:80/` → `http://example.com`: scheme and host lowercased, the
    /// default port and a trailing slash dropped.
    static func normalize(_ origin: String) -> String {
        guard let parsed = URLComponents(string: origin), let scheme = parsed.scheme?.lowercased(), let host = parsed.host?.lowercased() else {
            return origin.lowercased()
        }
        let defaultPort = scheme == "https" ? 443 : 80
        if let port = parsed.port, port != defaultPort {
            return "\(scheme)://\(host):\(port)"
        }
        return "\(scheme)://\(host)"
    }

    /// `127.0.0.1:8080` → ("127.0.0.1", 8080); `[::1]:80` → ("::1", 80).
    static func split(host: String, defaultPort: Int) -> (String, Int) {
        let lowered = host.lowercased()
        if lowered.hasPrefix("["), let close = lowered.firstIndex(of: "]") {
            let name = String(lowered[lowered.index(after: lowered.startIndex)..<close])
            let rest = lowered[lowered.index(after: close)...]
            let port = rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? defaultPort : defaultPort
            return (name, port)
        }
        let parts = lowered.split(separator: ":", maxSplits: 1)
        let port = parts.count == 2 ? Int(parts[1]) ?? defaultPort : defaultPort
        return (String(parts.first ?? ""), port)
    }
}
