import ReactorHubWebSocketServer

extension Configuration {
    /// Checks the rules that tie keys together (CONFIG.md); `source` names the file the
    /// values came from, if any.
    func validateRelations(source: String?) throws(ConfigurationError) {
        let prefix = source.map { "\($0): " } ?? ""
        func refuse(_ sentence: String) -> ConfigurationError {
            ConfigurationError(prefix + sentence)
        }
        if keepalive.timeoutSeconds <= keepalive.pingSeconds {
            throw refuse(
                "keepalive.timeoutSeconds must be greater than keepalive.pingSeconds (\(keepalive.pingSeconds)), got \(keepalive.timeoutSeconds)"
            )
        }
        if let auth, auth.hs256Secret == nil, auth.publicKeyFile == nil {
            throw refuse("auth needs auth.hs256Secret (or REACTORHUB_AUTH_SECRET) or auth.publicKeyFile")
        }
        if let tls {
            if tls.certFile != nil, tls.keyFile == nil {
                throw refuse("tls.keyFile must be set with tls.certFile (both files or neither)")
            }
            if tls.keyFile != nil, tls.certFile == nil {
                throw refuse("tls.certFile must be set with tls.keyFile (both files or neither)")
            }
        }
        if let echoPath = diagnostics.echoPath, echoPath == TransportConfiguration().webSocketPath {
            throw refuse("diagnostics.echoPath must differ from \(echoPath), the protocol's WebSocket path")
        }
        if cluster != nil, persistence.kind != .redis {
            throw refuse(#"persistence.kind must be "redis" with cluster (or persistence absent), got "\#(persistence.kind.rawValue)""#)
        }
        if let cluster, !cluster.sentinels.isEmpty, cluster.masterName == nil {
            throw refuse("cluster.masterName must be set with cluster.sentinels: the name the sentinels monitor the master under")
        }
        if let cluster, cluster.sentinels.isEmpty, let name = cluster.masterName {
            throw refuse(#"cluster.masterName ("\#(name)") needs cluster.sentinels: list the sentinels as "HOST:PORT", or remove masterName"#)
        }
        if cluster == nil, persistence.kind == .redis {
            throw refuse(#"persistence.kind "redis" needs a cluster section (or --cluster-redis)"#)
        }
    }
}
