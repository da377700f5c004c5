import TestSupport
import Testing
import ReactorHubWebSocketServer

/// The handshake findings over real sockets: before, libwebsockets 4.1.6 upgraded any
/// version and any key, and dropped the connection without a response for a missing key
/// or `Connection` header, or headers over its 4 KB budget.
@Suite("RFC 6455 opening handshake over the wire")
struct HandshakeConformanceTests {
    @Test func anotherVersionIsAnswered426WithTheVersionSpoken() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.attempt(port: port, headers: ["Sec-WebSocket-Version": "8"])
            #expect(client.responseStatusLine == "HTTP/1.1 426 Upgrade Required")
            #expect(client.responseHeaders["sec-websocket-version"] == "13")
            #expect(try await client.responseBody().contains("'8' is not supported"))
            #expect(handler.opened.isEmpty)
        }
    }

    @Test(arguments: [
        ("Sec-WebSocket-Key", "not base64 at all", "16 bytes in base64"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ", "16 bytes in base64"),
        ("Sec-WebSocket-Key", nil, "no Sec-WebSocket-Key"),
        ("Connection", nil, "Connection: Upgrade"),
        ("Connection", "keep-alive", "Connection: Upgrade"),
        ("Sec-WebSocket-Version", nil, "no Sec-WebSocket-Version"),
    ] as [(String, String?, String)])
    func malformedHandshakeIsAnswered400(header: String, value: String?, reason: String) async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.attempt(port: port, headers: [header: value])
            #expect(client.responseStatusLine == "HTTP/1.1 400 Bad Request")
            #expect(try await client.responseBody().contains(reason))
            #expect(handler.opened.isEmpty)
        }
    }

    @Test func connectionHeaderListingUpgradeAmongOthersIsAccepted() async throws {
        try await withServer { _, port, handler in
            let client = try await WebSocketTestClient.attempt(port: port, headers: ["Connection": "keep-alive, Upgrade"])
            #expect(client.responseStatus == 101)
            #expect(await handler.waitUntil { $0.opened.count == 1 })
        }
    }

    @Test func tenKilobytesOfCookiesStillUpgrade() async throws {
        try await withServer { _, port, handler in
            let cookie = "session=" + String(repeating: "c", count: 10_000)
            let client = try await WebSocketTestClient.attempt(port: port, headers: ["Cookie": cookie])
            #expect(client.responseStatus == 101)
            #expect(await handler.waitUntil { $0.opened.count == 1 })
        }
    }

    @Test func headersOverTheLimitAreAnswered431() async throws {
        try await withServer { server, port, handler in
            let cookie = "session=" + String(repeating: "c", count: server.configuration.maxRequestHeadBytes + 1)
            let client = try await WebSocketTestClient.attempt(port: port, headers: ["Cookie": cookie])
            #expect(client.responseStatusLine == "HTTP/1.1 431 Request Header Fields Too Large")
            #expect(try await client.responseBody() == "request headers exceed \(server.configuration.maxRequestHeadBytes) bytes\n")
            #expect(try await client.waitForEndOfStream())
            #expect(handler.opened.isEmpty)
        }
    }

    @Test func plainRequestWithHeadersOverTheLimitIsAnswered431() async throws {
        try await withServer { server, port, _ in
            let big = String(repeating: "x", count: server.configuration.maxRequestHeadBytes)
            let response = try await HTTPTestClient.request(port: port, path: "/healthz", headers: ["X-Padding": big])
            #expect(response.status == 431)
            let small = try await HTTPTestClient.request(port: port, path: "/healthz", headers: ["X-Padding": String(big.prefix(8000))])
            #expect(small.status == 200)
        }
    }

    @Test func plainGetOfTheWebSocketPathNamesTheUpgradeIt426s() async throws {
        try await withServer { _, port, _ in
            let response = try await HTTPTestClient.request(port: port, path: "/ws")
            #expect(response.status == 426)
            #expect(response.headers["upgrade"] == "websocket")
            #expect(response.headers["sec-websocket-version"] == "13")
        }
    }
}
