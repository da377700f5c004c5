import TestSupport
import Testing
@testable import ReactorHubWebSocketServer

/// PROTOCOL.md "Origin": listed origins, `*`, the server's own origin and upgrades
/// without `Origin` go on; anything else is answered 403 before any WebSocket opens.
@Suite("Origin at the upgrade")
struct OriginTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var origin: String?
        var allowed: [String]
        var status: Int
        var testDescription: String { "\(origin ?? "no Origin") with \(allowed) → \(status)" }
    }

    static let cases: [Case] = [
        Case(origin: "http://evil.example", allowed: [], status: 403),
        Case(origin: nil, allowed: [], status: 101),
        Case(origin: "SAME", allowed: [], status: 101),
        Case(origin: "http://app.example", allowed: ["http://app.example"], status: 101),
        Case(origin: "http://app.example:8443", allowed: ["http://app.example"], status: 403),
        Case(origin: "http://evil.example", allowed: ["*"], status: 101),
        Case(origin: "null", allowed: [], status: 403),
        // Host and port decide, as PROTOCOL.md says; the scheme only gives the default port.
        Case(origin: "https://SAME", allowed: [], status: 101),
    ]

    @Test(arguments: cases)
    func originDecidesTheUpgrade(_ testCase: Case) async throws {
        try await withServer(configure: { $0.allowedOrigins = testCase.allowed }) { _, port, handler in
            let origin = testCase.origin.map { $0.replacingOccurrences(of: "SAME", with: "127.0.0.1:\(port)") }
                .map { $0.hasPrefix("127.") ? "http://" + $0 : $0 }
            let client = try await WebSocketTestClient.attempt(port: port, origin: origin)
            #expect(client.responseStatus == testCase.status)
            if testCase.status == 403 {
                #expect(handler.opened.isEmpty)
            }
        }
    }

    @Test func sameOriginComparesHostAndPortWithTheDefaultPorts() {
        let plain = OriginPolicy(allowed: [], secure: false)
        #expect(plain.allows(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(plain.allows(origin: "http://EXAMPLE.com", host: "example.com"))
        #expect(plain.allows(origin: "http://example.com:80", host: "example.com"))
        #expect(!plain.allows(origin: "http://example.com:8080", host: "example.com"))
        #expect(!plain.allows(origin: "http://example.com.evil", host: "example.com"))
        #expect(plain.allows(origin: "http://[::1]:9000", host: "[::1]:9000"))
        let secure = OriginPolicy(allowed: [], secure: true)
        #expect(secure.allows(origin: "https://example.com", host: "example.com"))
        #expect(!secure.allows(origin: "https://example.com", host: nil))
        #expect(OriginPolicy(allowed: ["HTTPS://App.Example:443/"], secure: false).allows(origin: "https://app.example", host: "x"))
    }
}
