import Foundation

/// The Origin rule of PROTOCOL.md (and of HTTP requests to the layer above, API.md): an upgrade whose `Origin` is listed (or `*` is), or is
/// the server's own origin (its host and port equal the `Host` header; the scheme only
/// supplies the default port), is allowed;
/// anything else, `null` included, is refused. Upgrades without `Origin` never get here.
struct OriginPolicy: Sendable {
    let allowed: [String]
    /// Whether the server speaks TLS (its own origin is then `https://`).
    let secure: Bool

    /// What the rule says of an `Origin`.
    enum Verdict: Equatable {
        /// The server's own origin.
        case sameOrigin
        /// Another origin that `allowed` lists (its responses carry the CORS headers).
        case listed
        case refused
    }

    func allows(origin: String, host: String?) -> Bool {
        verdict(origin: origin, host: host) != .refused
    }

    func verdict(origin: String, host: String?) -> Verdict {
        if isSameOrigin(origin, host: host) { return .sameOrigin }
        if allowed.contains("*") { return .listed }
        let normalized = Self.normalize(origin)
        return allowed.contains(where: { Self.normalize($0) == normalized }) ? .listed : .refused
    }

    private func isSameOrigin(_ origin: String, host: String?) -> Bool {
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
