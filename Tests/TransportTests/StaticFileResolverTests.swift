import Testing
@testable import Transport

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

    @Test func unknownRootIsRejected() {
        #expect(StaticFileResolver(webRoot: "/definitely/not/here") == nil)
    }

    @Test func contentTypesByExtension() {
        #expect(ContentType.forPath("/x/index.HTML") == "text/html; charset=utf-8")
        #expect(ContentType.forPath("/x/a.svg") == "image/svg+xml")
        #expect(ContentType.forPath("/x.d/noext") == "application/octet-stream")
    }
}
