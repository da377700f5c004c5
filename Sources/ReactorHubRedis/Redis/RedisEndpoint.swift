/// Where one Redis server (or sentinel) listens: `HOST:PORT`.
public struct RedisEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The host name or address.
    public var host: String
    /// The TCP port.
    public var port: Int

    /// The server at `host:port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (`cluster.redis`, each of `cluster.sentinels`; an IPv6 host in
    /// brackets, `[::1]:26379`); nil when it is not of that form or the port is not from 1
    /// to 65535.
    public init?(address: String) {
        guard let colon = address.lastIndex(of: ":"), colon != address.startIndex,
              let port = Int(address[address.index(after: colon)...]), (1...65535).contains(port)
        else { return nil }
        var host = address[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        self.init(host: String(host), port: port)
    }

    /// `HOST:PORT`.
    public var description: String {
        "\(host):\(port)"
    }
}
