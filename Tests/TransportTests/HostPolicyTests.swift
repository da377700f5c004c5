import Testing
@testable import ReactorHubWebSocketServer

/// `security.allowedHosts`: which `Host` names are answered, port aside and without
/// regard to case (the rest of the rule is against a real daemon, Tests/e2e/test_hosts.py).
@Suite("Host names answered")
struct HostPolicyTests {
    @Test func theDefaultIsTheListeningHostAndLoopbackNames() {
        let policy = HostPolicy(allowed: [], listeningOn: "192.0.2.7")
        for host in ["192.0.2.7:8080", "localhost:8080", "LocalHost", "127.0.0.1", "[::1]:8080", "[::1]"] {
            #expect(policy.allows(host: host), "\(host)")
        }
        for host in ["evil.example:8080", "evil.example", "127.0.0.2:8080", "192.0.2.8", "localhost.evil.example", "[::2]:80"] {
            #expect(!policy.allows(host: host), "\(host)")
        }
    }

    @Test func aWildcardListeningHostAddsNoName() {
        for wildcard in ["0.0.0.0", "::", "[::]"] {
            let policy = HostPolicy(allowed: [], listeningOn: wildcard)
            #expect(policy.names == ["localhost", "127.0.0.1", "::1"], "\(wildcard)")
        }
        #expect(HostPolicy(allowed: [], listeningOn: "::1").names == ["localhost", "127.0.0.1", "::1"])
        #expect(HostPolicy(allowed: [], listeningOn: "fd00::7").allows(host: "[FD00::7]:443"))
    }

    @Test func aListReplacesTheDefault() {
        let policy = HostPolicy(allowed: ["App.Example", "api.example:8443", "[fd00::1]", "fd00::2"], listeningOn: "127.0.0.1")
        #expect(policy.allows(host: "app.example:8080"))
        #expect(policy.allows(host: "API.example"))
        #expect(policy.allows(host: "[fd00::1]:80"))
        #expect(policy.allows(host: "[fd00::2]"))
        #expect(!policy.allows(host: "127.0.0.1:8080"))
        #expect(!policy.allows(host: "localhost"))
    }

    @Test func aStarAllowsAnyNameAndARequestWithoutHostIsNotJudged() {
        #expect(HostPolicy(allowed: ["x.example", "*"], listeningOn: "127.0.0.1").allows(host: "evil.example:1"))
        #expect(HostPolicy(allowed: [], listeningOn: "127.0.0.1").allows(host: nil))
    }
}
