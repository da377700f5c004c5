import ReactorHubDaemon
import Testing

@Suite("Configuration precedence and rules between keys")
struct ConfigurationPrecedenceTests {
    let disk = VirtualDisk.installed

    @Test func precedenceIsDefaultsFileEnvironmentFlags() throws {
        let disk = disk.adding("/home/me/x.json", #"{"port":5000,"host":"10.0.0.1","logLevel":"warning","shutdownGraceMs":10}"#)
        let configuration = try disk.load(
            ["--config", "x.json", "--port", "7000", "--log-level", "debug"],
            environment: ["REACTORHUB_PORT": "6000", "REACTORHUB_HOST": "0.0.0.0", "REACTORHUB_LOG_LEVEL": "error"]
        )
        #expect(configuration.port == 7000)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.shutdownGraceMs == 10)
        #expect(configuration.history.patches == 256)
    }

    @Test func aLaterFlagWinsAndTheEqualsFormIsAccepted() throws {
        let configuration = try disk.load(["--port", "7000", "--port=7001"])
        #expect(configuration.port == 7001)
    }

    @Test func environmentAndFlagsAreCheckedLikeTheFile() {
        #expect(disk.refusal(environment: ["REACTORHUB_PORT": "x"]) == #"REACTORHUB_PORT must be an integer from 0 to 65535, got "x""#)
        #expect(disk.refusal(environment: ["REACTORHUB_HOST": ""]) == #"REACTORHUB_HOST must be a non-empty string, got """#)
        #expect(disk.refusal(environment: ["REACTORHUB_CLUSTER_REDIS": "redis"]) == #"REACTORHUB_CLUSTER_REDIS must be a "HOST:PORT" string, got "redis""#)
        #expect(disk.refusal(environment: ["REACTORHUB_AUTH_SECRET": ""]) == "REACTORHUB_AUTH_SECRET must be a non-empty string")
    }

    @Test func theSecretMayComeFromTheEnvironmentAndBringsInAuth() throws {
        let disk = disk.adding("/home/me/c.json", #"{"auth": {"required": false}}"#)
        #expect(disk.refusal(["--config", "c.json"]) == "c.json: auth needs auth.hs256Secret (or REACTORHUB_AUTH_SECRET) or auth.publicKeyFile")
        let configuration = try disk.load(["--config", "c.json"], environment: ["REACTORHUB_AUTH_SECRET": "s3cret"])
        #expect(configuration.auth?.hs256Secret == "s3cret")
        #expect(configuration.auth?.required == false)
        let withoutSection = try disk.load(environment: ["REACTORHUB_AUTH_SECRET": "s3cret"])
        #expect(withoutSection.auth?.hs256Secret == "s3cret")
        #expect(withoutSection.auth?.leewaySeconds == 30)
    }

    @Test func clusterFlagsBringInTheClusterWithRedisAsTheStore() throws {
        let configuration = try disk.load(["--cluster-redis", "10.0.0.5:6380", "--node-id", "n1"])
        #expect(configuration.cluster?.redis == "10.0.0.5:6380")
        #expect(configuration.cluster?.nodeId == "n1")
        #expect(configuration.cluster?.leaseMs == 5000)
        #expect(configuration.persistence.kind == .redis)
        let fromEnvironment = try disk.load(environment: ["REACTORHUB_NODE_ID": "n2"])
        #expect(fromEnvironment.cluster?.redis == "127.0.0.1:6379")
        #expect(fromEnvironment.cluster?.nodeId == "n2")
    }

    @Test func withClusterPersistenceMustBeAbsentOrRedis() throws {
        let sqlite = disk.adding("/home/me/c.json", #"{"cluster": {}, "persistence": {"kind": "sqlite"}}"#)
        #expect(sqlite.refusal(["--config", "c.json"]) == #"c.json: persistence.kind must be "redis" with cluster (or persistence absent), got "sqlite""#)
        let memory = disk.adding("/home/me/c.json", #"{"persistence": {"kind": "memory"}}"#)
        #expect(memory.refusal(["--config", "c.json", "--cluster-redis", "h:1"]) == #"c.json: persistence.kind must be "redis" with cluster (or persistence absent), got "memory""#)
        let redis = disk.adding("/home/me/c.json", #"{"cluster": {"keyPrefix": "x"}, "persistence": {"kind": "redis"}}"#)
        #expect(try redis.load(["--config", "c.json"]).persistence.kind == .redis)
    }

    @Test func sentinelsAndMasterNameComeTogether() throws {
        let nameless = disk.adding("/home/me/c.json", #"{"cluster": {"sentinels": ["10.0.0.1:26379"]}}"#)
        #expect(nameless.refusal(["--config", "c.json"])
            == "c.json: cluster.masterName must be set with cluster.sentinels: the name the sentinels monitor the master under")
        let alone = disk.adding("/home/me/c.json", #"{"cluster": {"masterName": "m"}}"#)
        #expect(alone.refusal(["--config", "c.json"])
            == #"c.json: cluster.masterName ("m") needs cluster.sentinels: list the sentinels as "HOST:PORT", or remove masterName"#)
        let both = disk.adding(
            "/home/me/c.json", #"{"cluster": {"sentinels": ["10.0.0.1:26379", "[::1]:26380"], "masterName": "m", "minReplicas": 1}}"#
        )
        let cluster = try #require(try both.load(["--config", "c.json"]).cluster)
        #expect(cluster.sentinels == ["10.0.0.1:26379", "[::1]:26380"])
        #expect(cluster.masterName == "m")
        #expect(cluster.minReplicas == 1)
    }

    @Test func redisPersistenceWithoutClusterIsRefused() {
        let disk = disk.adding("/home/me/c.json", #"{"persistence": {"kind": "redis"}}"#)
        #expect(disk.refusal(["--config", "c.json"]) == #"c.json: persistence.kind "redis" needs a cluster section (or --cluster-redis)"#)
    }

    @Test func tlsNeedsBothFilesOrNeither() throws {
        let disk = disk.adding("/etc/rh/cert.pem").adding("/etc/rh/key.pem")
        #expect(disk.adding("/etc/rh/c.json", #"{"tls": {"certFile": "cert.pem"}}"#).refusal(["--config", "/etc/rh/c.json"])
            == "/etc/rh/c.json: tls.keyFile must be set with tls.certFile (both files or neither)")
        #expect(disk.adding("/etc/rh/c.json", #"{"tls": {"keyFile": "key.pem"}}"#).refusal(["--config", "/etc/rh/c.json"])
            == "/etc/rh/c.json: tls.certFile must be set with tls.keyFile (both files or neither)")
        let both = try disk.adding("/etc/rh/c.json", #"{"tls": {"certFile": "cert.pem", "keyFile": "key.pem"}}"#)
            .load(["--config", "/etc/rh/c.json"])
        #expect(both.tls == Configuration.TLS(certFile: "/etc/rh/cert.pem", keyFile: "/etc/rh/key.pem"))
    }

    @Test func keepaliveTimeoutMustExceedThePingInterval() {
        let disk = disk.adding("/home/me/c.json", #"{"keepalive": {"pingSeconds": 30, "timeoutSeconds": 30}}"#)
        #expect(disk.refusal(["--config", "c.json"]) == "c.json: keepalive.timeoutSeconds must be greater than keepalive.pingSeconds (30), got 30")
    }

    @Test func aMissingConfigFileIsRefused() {
        #expect(disk.refusal(["--config", "missing.json"]) == "missing.json: configuration file not found or not readable")
    }
}

extension Configuration.TLS {
    init(certFile: String?, keyFile: String?) {
        self.init()
        self.certFile = certFile
        self.keyFile = keyFile
    }
}

@Suite("server.threads")
struct ServerThreadsConfigurationTests {
    let disk = VirtualDisk.installed

    @Test func zeroMeansOnePerUsableCoreAndIsPassedToTheServerAsCounted() throws {
        let defaults = try disk.load()
        #expect(defaults.server == nil)
        #expect(defaults.transportConfiguration().threads == CPUCoresProbe.usable)
        let four = try disk.adding("/home/me/c.json", #"{"server": {"threads": 4}}"#).load(["--config", "c.json"])
        #expect(four.server?.threads == 4)
        #expect(four.transportConfiguration().threads == 4)
        let zero = try disk.adding("/home/me/c.json", #"{"server": {"threads": 0, "compression": false}}"#).load(["--config", "c.json"])
        #expect(zero.server?.threads == 0)
        #expect(zero.transportConfiguration().threads == CPUCoresProbe.usable)
        #expect(zero.transportConfiguration().compression == false)
    }

    @Test func theEnvironmentSetsItAboveTheFile() throws {
        let disk = disk.adding("/home/me/c.json", #"{"server": {"threads": 2}}"#)
        let configuration = try disk.load(["--config", "c.json"], environment: ["REACTORHUB_SERVER_THREADS": "3"])
        #expect(configuration.server?.threads == 3)
        #expect(configuration.server?.compression == true)
    }

    @Test func outOfRangeValuesAreRefusedNamingTheKey() {
        let disk = disk.adding("/home/me/c.json", #"{"server": {"threads": 257}}"#)
        #expect(disk.refusal(["--config", "c.json"]) == "c.json: server.threads must be an integer from 0 to 256, got 257")
        #expect(self.disk.refusal(environment: ["REACTORHUB_SERVER_THREADS": "-1"]) == #"REACTORHUB_SERVER_THREADS must be an integer from 0 to 256, got "-1""#)
    }
}

/// The cores this test process may use, read as the daemon reads them (its affinity mask).
enum CPUCoresProbe {
    static var usable: Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        // "Cpus_allowed_list:	0-1" or "0,2-3".
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }) else { return 0 }
        let list = line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)
        return list.split(separator: ",").reduce(0) { count, range in
            let bounds = range.split(separator: "-").compactMap { Int($0) }
            return count + (bounds.count == 2 ? bounds[1] - bounds[0] + 1 : 1)
        }
    }
}
