import Foundation
import TestSupport
import Testing
import ReactorHubWebSocketServer

@Suite("HTTP: static files and health")
struct StaticFileTests {
    /// A temporary web root with an index, a script and a nested page, beside a secret
    /// file that must never be reachable.
    static func makeWebRoot() throws -> (root: String, cleanup: () -> Void) {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("rh-web-\(UUID().uuidString)")
        let root = base.appendingPathComponent("web")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("docs"), withIntermediateDirectories: true)
        try "<!doctype html><title>ReactorHub</title>".write(to: root.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "export const answer = 42;\n".write(to: root.appendingPathComponent("app.js"), atomically: true, encoding: .utf8)
        try "body { color: black }".write(to: root.appendingPathComponent("style.css"), atomically: true, encoding: .utf8)
        try "nested".write(to: root.appendingPathComponent("docs/index.html"), atomically: true, encoding: .utf8)
        try "top secret".write(to: base.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("escape.txt"), withDestinationURL: base.appendingPathComponent("secret.txt")
        )
        return (root.path, { try? FileManager.default.removeItem(at: base) })
    }

    func withWebServer(_ body: (Int) async throws -> Void) async throws {
        let (root, cleanup) = try Self.makeWebRoot()
        defer { cleanup() }
        try await withServer(configure: { $0.webRoot = root }) { _, port, _ in
            try await body(port)
        }
    }

    @Test func rootServesIndexHTML() async throws {
        try await withWebServer { port in
            let response = try await HTTPTestClient.request(port: port, path: "/")
            #expect(response.status == 200)
            #expect(response.text == "<!doctype html><title>ReactorHub</title>")
            #expect(response.headers["content-type"] == "text/html; charset=utf-8")
            #expect(response.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        }
    }

    @Test func filesCarryTheirContentTypes() async throws {
        try await withWebServer { port in
            let script = try await HTTPTestClient.request(port: port, path: "/app.js")
            #expect(script.status == 200)
            #expect(script.text == "export const answer = 42;\n")
            #expect(script.headers["content-type"] == "text/javascript; charset=utf-8")
            let style = try await HTTPTestClient.request(port: port, path: "/style.css?v=3")
            #expect(style.status == 200)
            #expect(style.headers["content-type"] == "text/css; charset=utf-8")
            let nested = try await HTTPTestClient.request(port: port, path: "/docs/")
            #expect(nested.text == "nested")
        }
    }

    @Test func missingFileIsAnswered404AtOnce() async throws {
        try await withWebServer { port in
            // A 1 s timeout: a server that leaves the request hanging fails this test.
            let response = try await HTTPTestClient.request(port: port, path: "/nope.html", timeout: 1)
            #expect(response.status == 404)
        }
    }

    @Test(arguments: ["/../secret.txt", "/%2e%2e/secret.txt", "/docs/../../secret.txt", "/escape.txt", "/.hidden", "/..%2fsecret.txt"])
    func pathsEscapingTheRootAreNotServed(path: String) async throws {
        try await withWebServer { port in
            let response = try await HTTPTestClient.request(port: port, path: path, timeout: 2)
            #expect(response.status == 404 || response.status == 403 || response.status == 400)
            #expect(!response.text.contains("top secret"))
        }
    }

    @Test func healthzAnswersOK() async throws {
        try await withServer { _, port, _ in
            let response = try await HTTPTestClient.request(port: port, path: "/healthz")
            #expect(response.status == 200)
            #expect(response.text == "ok\n")
        }
    }

    @Test func headAnswersWithoutBodyAndOtherMethodsAre405() async throws {
        try await withWebServer { port in
            let head = try await HTTPTestClient.request(port: port, method: "HEAD", path: "/healthz")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            let post = try await HTTPTestClient.request(port: port, method: "POST", path: "/healthz")
            #expect(post.status == 405)
        }
    }

    @Test func healthzReports503OnceTheServerStopsAccepting() async throws {
        try await withServer { server, port, _ in
            server.stopAccepting()
            let health = try await HTTPTestClient.request(port: port, path: "/healthz")
            #expect(health.status == 503)
            let upgrade = try await WebSocketTestClient.attempt(port: port)
            #expect(upgrade.responseStatus == 503)
        }
    }
}
