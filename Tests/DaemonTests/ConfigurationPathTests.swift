@testable import ReactorHubDaemon
import Testing

@Suite("Configuration paths")
struct ConfigurationPathTests {
    let disk = VirtualDisk.installed

    @Test func relativePathsInAFileAreTakenFromItsFolder() throws {
        let disk = disk
            .adding("/etc/reactorhub/reactorhub.json", #"""
                {"webRoot": "site", "reactors": {"weather": {"dataFile": "../data/cities.json"}},
                 "persistence": {"kind": "sqlite", "path": "state/db.sqlite"},
                 "auth": {"publicKeyFile": "./keys/public.pem"}}
                """#)
            .addingFolder("/etc/reactorhub/site")
            .adding("/etc/data/cities.json", "{}")
            .adding("/etc/reactorhub/keys/public.pem")
        let configuration = try disk.load(["--config", "/etc/reactorhub/reactorhub.json"], workingDirectory: "/tmp")
        #expect(configuration.webRoot == "/etc/reactorhub/site")
        #expect(configuration.reactors.weather.dataFile == "/etc/data/cities.json")
        #expect(configuration.persistence.path == "/etc/reactorhub/state/db.sqlite")
        #expect(configuration.auth?.publicKeyFile == "/etc/reactorhub/keys/public.pem")
    }

    @Test func aRelativeConfigFileIsFoundFromTheWorkingDirectoryAndItsPathsFromItsFolder() throws {
        let disk = disk.adding("/home/me/conf/c.json", #"{"webRoot": "www"}"#).addingFolder("/home/me/conf/www")
        let configuration = try disk.load(["--config", "conf/c.json"])
        #expect(configuration.webRoot == "/home/me/conf/www")
    }

    @Test func relativePathsFromFlagsAndEnvironmentAreTakenFromTheWorkingDirectory() throws {
        let disk = disk.addingFolder("/home/me/site").adding("/home/me/c.json", #"{"webRoot": "/nowhere"}"#)
        let configuration = try disk.load(
            ["--config", "c.json", "--web-root", "site"],
            environment: ["REACTORHUB_PERSISTENCE_PATH": "state/x.sqlite"]
        )
        #expect(configuration.webRoot == "/home/me/site")
        #expect(configuration.persistence.path == "/home/me/state/x.sqlite")
    }

    @Test func builtInDefaultsFindTheInstalledFilesNextToTheExecutable() throws {
        let configuration = try disk.load(workingDirectory: "/")
        #expect(configuration.webRoot == "/opt/rh/share/reactorhub/web")
        #expect(configuration.reactors.weather.dataFile == "/opt/rh/share/reactorhub/config/weather.json")
        #expect(configuration.persistence.path == "/data/reactorhub.sqlite")
    }

    @Test func keysLeftOutOfAFileKeepTheirInstalledDefaults() throws {
        let disk = disk.adding("/etc/reactorhub/reactorhub.json", #"{"port": 9000}"#)
        let configuration = try disk.load(["--config", "/etc/reactorhub/reactorhub.json"])
        #expect(configuration.webRoot == "/opt/rh/share/reactorhub/web")
        #expect(configuration.reactors.weather.dataFile == "/opt/rh/share/reactorhub/config/weather.json")
    }

    @Test func builtInDefaultsFallBackToTheWorkingDirectory() throws {
        let disk = VirtualDisk().addingFolder("/srv/web").adding("/srv/config/weather.json")
        let configuration = try disk.load(workingDirectory: "/srv")
        #expect(configuration.webRoot == "/srv/web")
        #expect(configuration.reactors.weather.dataFile == "/srv/config/weather.json")
    }

    @Test func withoutConfigTheWorkingDirectorysFileComesFirstThenTheInstalledOne() throws {
        let installed = disk.adding("/opt/rh/share/reactorhub/config/reactorhub.json", #"{"port": 1111, "webRoot": "../web"}"#)
        #expect(try installed.load(workingDirectory: "/").port == 1111)
        #expect(try installed.load(workingDirectory: "/").webRoot == "/opt/rh/share/reactorhub/web")
        let local = installed.adding("/home/me/config/reactorhub.json", #"{"port": 2222, "webRoot": "../site"}"#)
            .addingFolder("/home/me/site")
        let configuration = try local.load()
        #expect(configuration.port == 2222)
        #expect(configuration.webRoot == "/home/me/site")
        #expect(try disk.load(workingDirectory: "/").port == 8080)
    }

    @Test func aPathThatMustExistAndDoesNotIsRefusedNamingTheKeyAndTheResolvedPath() {
        #expect(disk.adding("/etc/rh/c.json", #"{"webRoot": "site"}"#).refusal(["--config", "/etc/rh/c.json"])
            == "webRoot: folder not found: /etc/rh/site")
        #expect(disk.adding("/etc/rh/c.json", #"{"reactors": {"weather": {"dataFile": "w.json"}}}"#).refusal(["--config", "/etc/rh/c.json"])
            == "reactors.weather.dataFile: file not found: /etc/rh/w.json")
        #expect(disk.refusal(["--web-root", "../site"]) == "webRoot: folder not found: /home/site")
        let tls = disk.adding("/etc/rh/cert.pem").adding("/etc/rh/c.json", #"{"tls": {"certFile": "cert.pem", "keyFile": "key.pem"}}"#)
        #expect(tls.refusal(["--config", "/etc/rh/c.json"]) == "tls.keyFile: file not found: /etc/rh/key.pem")
        let key = disk.adding("/etc/rh/c.json", #"{"auth": {"publicKeyFile": "/keys/k.pem"}}"#)
        #expect(key.refusal(["--config", "/etc/rh/c.json"]) == "auth.publicKeyFile: file not found: /keys/k.pem")
        #expect(VirtualDisk().refusal() == "webRoot: folder not found: /home/me/web")
    }

    @Test func aFolderIsNotAFileNorAFileAFolder() {
        let disk = disk.adding("/etc/rh/c.json", #"{"webRoot": "c.json", "reactors": {"weather": {"dataFile": "."}}}"#)
        #expect(disk.refusal(["--config", "/etc/rh/c.json"]) == "webRoot: folder not found: /etc/rh/c.json")
    }

    @Test func theDatabaseNeedNotExist() throws {
        let disk = disk.adding("/etc/rh/c.json", #"{"persistence": {"kind": "sqlite", "path": "/var/lib/rh/db.sqlite"}}"#)
        #expect(try disk.load(["--config", "/etc/rh/c.json"]).persistence.path == "/var/lib/rh/db.sqlite")
    }

    @Test(arguments: [
        ("web", "/etc/rh", "/etc/rh/web"),
        ("../web", "/usr/share/rh/config", "/usr/share/rh/web"),
        ("./a//b/./c.json", "/x", "/x/a/b/c.json"),
        ("/abs/../other", "/ignored", "/other"),
        ("../../..", "/a", "/"),
    ])
    func relativePathsAreResolvedOnTheText(path: String, base: String, resolved: String) {
        #expect(Paths.resolve(path, against: base) == resolved)
    }

    @Test func theFolderOfAPath() {
        #expect(Paths.directory(of: "/etc/reactorhub/reactorhub.json") == "/etc/reactorhub")
        #expect(Paths.directory(of: "/reactorhub.json") == "/")
    }
}
