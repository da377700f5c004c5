import ReactorHubJSON

/// Every configuration key of CONFIG.md, declared once, in the order `--print-config`,
/// `--help` and the README's table list them. A declaration names the key, binds it to
/// its member of `Configuration` (whose initializer holds the default), says what it
/// accepts, what it does, and its environment variable and flag when it has them.
enum ConfigurationSchema {
    typealias Key = ConfigurationKey<Configuration>

    /// Every key, in order.
    static let keys: [Key] = base + persistence + sections.flatMap(\.keys) + webhooks + diagnostics

    static let base: [Key] = [
        .key("host", \.host, .text(), "the address to listen on", environment: "REACTORHUB_HOST", flag: "--host ADDR"),
        .key("port", \.port, .integer(0...65535), "the port to listen on; 0 binds an ephemeral port",
             environment: "REACTORHUB_PORT", flag: "--port N"),
        .key("webRoot", \.webRoot, .path(.installedFolder), "the folder of static files served over HTTP: the demo page",
             flag: "--web-root DIR"),
        .key("logLevel", \.logLevel, .choice, "the least severe level logged",
             environment: "REACTORHUB_LOG_LEVEL", flag: "--log-level LEVEL"),
        .key("logFormat", \.logFormat, .choice, "log lines on standard error: text, or one JSON object per line"),
        .key("limits.maxMessageBytes", \.limits.maxMessageBytes, .integer(1024...67_108_864),
             "larger messages close the connection with 1009"),
        .key("limits.maxConnections", \.limits.maxConnections, .integer(1...1_000_000),
             "further upgrades are refused with HTTP 503"),
        .key("limits.maxJoinsPerConnection", \.limits.maxJoinsPerConnection, .integer(1...100_000),
             "reactors one connection may have joined; `too_many_joins` beyond"),
        .key("limits.actionsPerSecond", \.limits.actionsPerSecond, .integer(1...10_000_000),
             "the rate of each connection's token bucket; `rate_limited` beyond"),
        .key("limits.actionBurst", \.limits.actionBurst, .integer(1...10_000_000),
             "the size of each connection's token bucket"),
        .key("limits.outboundQueueBytes", \.limits.outboundQueueBytes, .integer(1024...1_073_741_824),
             "the slow-consumer threshold (docs/protocol.md)"),
        .key("limits.outboundBudgetBytes", \.limits.outboundBudgetBytes, .integer(65536...68_719_476_736),
             "bytes all outboxes may hold together; past it, full sockets shed at a quarter of outboundQueueBytes"),
        .key("limits.maxInstances", \.limits.maxInstances, .integer(1...10_000_000),
             "instances in memory at once; a join that would create one more gets `overloaded`"),
        .key("limits.maxPendingActions", \.limits.maxPendingActions, .integer(1...10_000_000),
             "actions waiting in one instance before its senders' sockets are no longer read"),
        .key("limits.maxPendingActionsTotal", \.limits.maxPendingActionsTotal, .integer(1...100_000_000),
             "actions waiting over all instances before senders' sockets are no longer read"),
        .key("limits.maxConnectionsPerAddress", \.limits.maxConnectionsPerAddress, .integer(1...1_000_000),
             "open sockets from one peer address; more are closed at once"),
        .key("limits.upgradesPerSecond", \.limits.upgradesPerSecond, .integer(1...10_000_000),
             "new WebSocket upgrades per second; more are answered 503"),
        .key("limits.maxMemoryBytes", \.limits.maxMemoryBytes, .optional(.integer(16_777_216...Int.max)),
             "resident memory the daemon may use (null: half of the cgroup's limit or of physical memory); past 90%, joins that create instances and actions get `overloaded`"),
        .key("limits.maxInstancesPerUser", \.limits.maxInstancesPerUser, .optional(.integer(1...10_000_000)),
             "instances one user (a token's sub, or a peer address when anonymous) may have created and hold (null: maxInstances/10); `overloaded` beyond"),
        .key("limits.joinsPerSecond", \.limits.joinsPerSecond, .integer(1...10_000_000),
             "the rate of each connection's join bucket; `rate_limited` beyond"),
        .key("limits.joinBurst", \.limits.joinBurst, .integer(1...10_000_000), "the size of each connection's join bucket"),
        .key("limits.tlsHandshakesPerSecond", \.limits.tlsHandshakesPerSecond, .integer(1...1_000_000),
             "with `tls`, TLS handshakes one peer address may start per second; its sockets beyond are closed at accept"),
        .key("limits.tlsHandshakeBurst", \.limits.tlsHandshakeBurst, .integer(1...1_000_000),
             "TLS handshakes one peer address may start at once"),
        .key("shutdownGraceMs", \.shutdownGraceMs, .integer(0...600_000),
             "how long running effects may finish at shutdown"),
        .key("history.patches", \.history.patches, .integer(0...1_000_000), "patches kept per instance for resumes"),
        .key("history.maxBytes", \.history.maxBytes, .integer(0...1_073_741_824),
             "bytes of patches kept per instance; older ones go first"),
        .key("keepalive.pingSeconds", \.keepalive.pingSeconds, .integer(1...3600), "silence before a connection is pinged"),
        .key("keepalive.timeoutSeconds", \.keepalive.timeoutSeconds, .integer(2...7200),
             "silence before a connection is dropped; more than pingSeconds"),
        .key("reactors.counter.delayMs", \.reactors.counter.delayMs, .integer(0...600_000),
             "the counter's delay before its value changes"),
        .key("reactors.weather.dataFile", \.reactors.weather.dataFile, .path(.installedFile),
             "the weather kind's offline cities"),
        .key("reactors.weather.latencyMs", \.reactors.weather.latencyMs, .integer(0...600_000),
             "the weather kind's simulated lookup latency"),
        .key("reactors.todo.maxItems", \.reactors.todo.maxItems, .integer(1...1_000_000), "items a todo list may hold"),
        .key("reactors.todo.maxTitleLength", \.reactors.todo.maxTitleLength, .integer(1...100_000),
             "characters a todo title may have"),
        .key("reactors.todo.maxTitleBytes", \.reactors.todo.maxTitleBytes, .integer(1...1_048_576),
             "UTF-8 bytes a todo title may take"),
        .key("reactors.doc.maxBytes", \.reactors.doc.maxBytes, .integer(2...268_435_456),
             "bytes of compact JSON a doc may take"),
        .key("reactors.doc.maxDepth", \.reactors.doc.maxDepth, .integer(1...JSONValue.maximumStateDepth),
             "arrays and objects on a doc's deepest path, the root being 1; a deeper edit gets `invalid_action`"),
        .key("reactors.doc.maxElements", \.reactors.doc.maxElements, .integer(1...1_000_000),
             "elements one array, or members one object, of a doc may hold; an edit copies at most this many"),
        .key("reactors.doc.maxOperations", \.reactors.doc.maxOperations, .integer(1...100_000),
             "operations one doc `patch` action may carry"),
    ]

    static let persistence: [Key] = [
        .key("persistence.kind", \.persistence.kind, .choice,
             "where instance state is kept: memory (nothing kept), sqlite, or redis (with cluster)"),
        .key("persistence.path", \.persistence.path, .path(.creatable), "the SQLite database file; its folder is created",
             environment: "REACTORHUB_PERSISTENCE_PATH"),
        .key("persistence.flushMs", \.persistence.flushMs, .integer(1...600_000),
             "the longest an acked change waits to be committed"),
        .key("persistence.flushChanges", \.persistence.flushChanges, .integer(1...1_000_000),
             "a batch is committed early once this many changes are pending"),
        .key("persistence.durableAcks", \.persistence.durableAcks, .boolean,
             "ack (and send patches) only once the change is on disk"),
    ]

    /// The optional sections: absent unless the file (or one of their flags or variables)
    /// brings them in.
    static let sections: [ConfigurationSection] = [
        .optional("auth", \.auth, "token verification (docs/protocol.md); absent: every connection may join and act", [
            .key("hs256Secret", \.hs256Secret, .optional(.text()), "the HS256 secret",
                 environment: "REACTORHUB_AUTH_SECRET", secret: true),
            .key("publicKeyFile", \.publicKeyFile, .optional(.path(.file)), "a PEM public key for RS256 and ES256 tokens"),
            .key("audience", \.audience, .optional(.text()), "the `aud` tokens must carry, when set"),
            .key("issuer", \.issuer, .optional(.text()), "the `iss` tokens must carry, when set"),
            .key("leewaySeconds", \.leewaySeconds, .integer(0...3600), "clock skew allowed on `exp`, `nbf` and `iat`"),
            .key("required", \.required, .boolean, "connections must authenticate; false: one without a token gets anonymousRights"),
            .key("timeoutMs", \.timeoutMs, .integer(100...600_000), "time to authenticate before the close with 1008"),
            .key("anonymousRights", \.anonymousRights, .rights, "the rights of a connection without a token"),
        ]),
        .optional("admin", \.admin, "the admin endpoints (`POST /admin/revoke`)", [
            .key("token", \.token, .optional(.text()), "the bearer the admin endpoints require; null: they answer 404",
                 secret: true),
        ]),
        .optional("security", \.security, "checks of requests and WebSocket upgrades", [
            .key("allowedOrigins", \.allowedOrigins, .texts, #"browser origins accepted besides the same origin ("*": any)"#),
            .key("allowedHosts", \.allowedHosts, .texts,
                 #"`Host` names answered, port aside; empty: `host` (unless a wildcard), localhost, 127.0.0.1, [::1]; "*": any; others get 421"#),
        ]),
        .optional("tls", \.tls, "HTTPS and WSS only, with both files", [
            .key("certFile", \.certFile, .optional(.path(.file)), "the PEM certificate chain"),
            .key("keyFile", \.keyFile, .optional(.path(.file)), "the PEM private key"),
        ]),
        .optional("metrics", \.metrics, "`GET /metrics` (Prometheus text; docs/operations.md)", [
            .key("enabled", \.enabled, .boolean, "serve `GET /metrics`; `GET /readyz` answers either way"),
        ]),
        .optional("actions", \.actions, "idempotent action ids", [
            .key("dedupeSeconds", \.dedupeSeconds, .integer(1...604_800), "how long the outcome of an action id is kept"),
            .key("dedupeEntries", \.dedupeEntries, .integer(1...10_000_000), "action ids kept per instance"),
        ]),
        .optional("presence", \.presence, "who else is in a reactor", [
            .key("maxBytes", \.maxBytes, .integer(2...1_048_576), "bytes of compact JSON one presence state may take"),
            .key("maxListed", \.maxListed, .integer(0...1_000_000), "entries listed per reactor; `presenceCount` beyond"),
        ]),
        .optional("cluster", \.cluster, "daemons sharing their reactors through Redis (docs/cluster.md)", [
            .key("redis", \.redis, .hostAndPort, "the Redis server",
                 environment: "REACTORHUB_CLUSTER_REDIS", flag: "--cluster-redis HOST:PORT"),
            .key("nodeId", \.nodeId, .optional(.text()), "this node's id; null: a random id at each start",
                 environment: "REACTORHUB_NODE_ID", flag: "--node-id ID"),
            .key("leaseMs", \.leaseMs, .integer(100...600_000), "how long an instance's owner holds it without renewing"),
            .key("keyPrefix", \.keyPrefix, .text(), "the prefix of every Redis key"),
            .key("sentinels", \.sentinels, .hostAndPorts,
                 "Redis Sentinels to ask for the master (a majority must name it); non-empty: `redis` is ignored"),
            .key("masterName", \.masterName, .optional(.text()), "the master's name at the sentinels; needed with `sentinels`"),
            .key("minReplicas", \.minReplicas, .integer(0...64),
                 "replicas `WAIT` must confirm each commit reached before its actions are acked; 0: acked once the master has it"),
        ]),
        .optional("api", \.api, "the HTTP API and event stream under `/api/v1/` (docs/api-http.md); absent: on", [
            .key("enabled", \.enabled, .boolean, "serve `/api/v1/`; false: every path under it answers 404"),
        ]),
        .optional("server", \.server, "how the WebSocket server serves sockets", [
            .key("threads", \.threads, .integer(0...256),
                 "threads serving sockets, each with its own libwebsockets context (a connection lives on one); 0: one per CPU core the process may use",
                 environment: "REACTORHUB_SERVER_THREADS"),
            .key("compression", \.compression, .boolean,
                 "accept permessage-deflate when a client offers it: frames from 1024 bytes on go compressed, each compressed once for every subscriber"),
        ]),
    ]

    static let webhooks: [Key] = [
        .key("webhooks", \.webhooks, .webhooks,
             "receivers of instance events (pulse, action, instance.created, instance.evicted), signed with HMAC-SHA256 (docs/api-http.md); each `secret` is never printed"),
    ]

    static let diagnostics: [Key] = [
        .key("diagnostics.echoPath", \.diagnostics.echoPath, .optional(.urlPath),
             "an echo endpoint at this path, for diagnostics; null: none"),
        .key("diagnostics.idleEvictionMs", \.diagnostics.idleEvictionMs, .integer(100...86_400_000),
             "how long an instance without subscribers or running effects stays in memory (checked every half of it)"),
    ]
}
