/// A `ws://` or `wss://` URL taken apart for a client handshake.
public struct WebSocketURL: Sendable, Hashable, CustomStringConvertible {
    /// Whether the connection uses TLS (`wss://`).
    public var isSecure: Bool
    /// The host name or IP literal, without brackets (`::1`, not `[::1]`).
    public var host: String
    /// The TCP port: explicit, or 80 for `ws://` and 443 for `wss://`.
    public var port: Int
    /// The request target: the path with its query, e.g. `/ws?token=…`; at least `/`.
    public var target: String

    /// Parses `ws://HOST[:PORT][/PATH][?QUERY]` or `wss://…`; `nil` for anything else.
    public init?(_ text: String) {
        let secure: Bool
        let rest: Substring
        if text.lowercased().hasPrefix("ws://") {
            secure = false
            rest = text.dropFirst(5)
        } else if text.lowercased().hasPrefix("wss://") {
            secure = true
            rest = text.dropFirst(6)
        } else {
            return nil
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if let fragment = target.firstIndex(of: "#") {
            target = String(target[..<fragment])
        }
        if target.isEmpty || target.hasPrefix("?") {
            target = "/" + target
        }
        guard !authority.contains("@") else { return nil }  // no user info on a WebSocket URL
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "\0" }) else { return nil }
        var port = secure ? 443 : 80
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else { return nil }
            port = number
        }
        self.isSecure = secure
        self.host = String(host)
        self.port = port
        self.target = target
    }

    /// `host:port` as the `Host` header writes it (IPv6 literals in brackets).
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return "\(name):\(port)"
    }

    /// The URL again, normalised.
    public var description: String {
        "\(isSecure ? "wss" : "ws")://\(hostHeader)\(target)"
    }
}
