/// Opening a link: the connection, its name, and the check that the server is what the
/// link expects, in one place for the command, subscriber and inbox links.
extension RedisConnection {
    /// Connects to `endpoint`, attaches the socket to `interrupter`, names the connection
    /// (CLIENT SETNAME) when the configuration says so, then asks ROLE when a master is
    /// expected (anything else is a `.connection` error) or PINGs: a stopped server's kernel
    /// still accepts connections, so the link is up only once the server answers.
    static func link(
        to endpoint: RedisEndpoint,
        configuration: RedisConfiguration,
        expectsMaster: Bool,
        interrupter: LinkInterrupter
    ) throws(RedisError) -> RedisConnection {
        let connection = try RedisConnection(
            host: endpoint.host,
            port: endpoint.port,
            connectTimeout: configuration.connectTimeout,
            commandTimeout: configuration.commandTimeout
        )
        interrupter.attach(connection.fileDescriptor)
        do throws(RedisError) {
            if let name = configuration.clientName {
                _ = try connection.send(["CLIENT", "SETNAME", RedisArgument(name)])
            }
            if expectsMaster {
                try connection.requireMaster(endpoint)
            } else {
                _ = try connection.send(["PING"])
            }
        } catch {
            interrupter.detach()
            connection.close()
            throw error
        }
        return connection
    }

    /// Throws `.connection` unless ROLE says `master`: a replica (or a sentinel) is never
    /// written to, whatever names it.
    func requireMaster(_ endpoint: RedisEndpoint) throws(RedisError) {
        let role = try send(["ROLE"]).expectArray("ROLE").first?.text ?? "nothing"
        guard role == "master" else {
            throw RedisError(.connection, "\(endpoint) is not a master (ROLE says \(role))")
        }
    }
}
