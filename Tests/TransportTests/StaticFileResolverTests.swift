import Foundation
import Testing
@testable import ReactorHubWebSocketServer

@Suite("Static file resolution")
struct StaticFileResolverTests {
    @Test func resolvesIndexAndFilesInsideTheRoot() throws {
        let (root, cleanup) = try StaticFileTests.makeWebRoot()
        defer { cleanup() }
        let resolver = try #require(StaticFileResolver(webRoot: root))
        #expect(resolver.resolve("/")?.path == resolver.root + "/index.html")
        #expect(resolver.resolve("/app.js")?.contentType == "text/javascript; charset=utf-8")
        #expect(resolver.resolve("/docs")?.path == resolver.root + "/docs/index.html")
        #expect(resolver.resolve("/%61pp.js")?.path == resolver.root + "/app.js")
        #expect(resolver.resolve("/missing") == nil)
        #expect(resolver.resolve("/../secret.txt") == nil)
        #expect(resolver.resolve("/escape.txt") == nil)
        #expect(resolver.resolve("/a%2") == nil)
        #expect(resolver.resolve("relative") == nil)
    }

    /// Found by the static-path fuzz target (Fuzz/regressions/static-path): the dotfile rule
    /// looked only at the request, so a symbolic link inside the root led to a dotfile.
    @Test func aSymlinkInsideTheRootDoesNotLeadToADotfile() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rh-dot-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".git"), withIntermediateDirectories: true)
        try "x".write(to: root.appendingPathComponent(".env"), atomically: true, encoding: .utf8)
        try "x".write(to: root.appendingPathComponent(".git/config"), atomically: true, encoding: .utf8)
        try "x".write(to: root.appendingPathComponent("plain.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("env-link.txt").path, withDestinationPath: ".env")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("config").path, withDestinationPath: ".git/config")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("git").path, withDestinationPath: ".git")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("alias.txt").path, withDestinationPath: "plain.txt")
        let resolver = try #require(StaticFileResolver(webRoot: root.path))
        #expect(resolver.resolve("/env-link.txt") == nil)
        #expect(resolver.resolve("/config") == nil)
        #expect(resolver.resolve("/git/config") == nil)
        #expect(resolver.resolve("/.env") == nil)
        #expect(resolver.resolve("/alias.txt")?.path == resolver.root + "/plain.txt")
    }

    /// The segment rules compared Characters: a backslash followed by a combining mark is
    /// one Character that is not "\\", so `contains("\\")` let it through.
    @Test func aBackslashOrADotHiddenInACharacterIsStillRefused() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("rh-chars-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try "x".write(to: root.appendingPathComponent("back\\\u{301}slash"), atomically: true, encoding: .utf8)
        try "x".write(to: root.appendingPathComponent(".\u{301}accent"), atomically: true, encoding: .utf8)
        try "x".write(to: root.appendingPathComponent("e\u{301}t\u{e9}.txt"), atomically: true, encoding: .utf8)
        let resolver = try #require(StaticFileResolver(webRoot: root.path))
        #expect(resolver.resolve("/back%5C%CC%81slash") == nil)
        #expect(resolver.resolve("/.%CC%81accent") == nil)
        #expect(resolver.resolve("/e%CC%81t%C3%A9.txt")?.path == resolver.root + "/e\u{301}t\u{e9}.txt")
        #expect(resolver.resolve("//e%CC%81t%C3%A9.txt/")?.path == resolver.root + "/e\u{301}t\u{e9}.txt")
    }

    @Test func unknownRootIsRejected() {
        #expect(StaticFileResolver(webRoot: "/definitely/not/here") == nil)
    }

    @Test func contentTypesByExtension() {
        #expect(ContentType.forPath("/x/index.HTML") == "text/html; charset=utf-8")
        #expect(ContentType.forPath("/x/a.svg") == "image/svg+xml")
        #expect(ContentType.forPath("/x.d/noext") == "application/octet-stream")
    }
}
