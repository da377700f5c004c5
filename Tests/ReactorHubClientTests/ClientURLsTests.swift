import ReactorHubJSON
import ReactorHubClient
import Testing

/// Several URLs (the nodes of a cluster), and the end of a session the client cannot
/// renew, against a server played by the test (Support/FakeSocket.swift).
@Suite struct ClientURLsTests {
    let urls = ["ws://node-a/ws", "ws://node-b/ws", "ws://node-c/ws"]

    @Test func theFirstConnectionMovesOnToTheNextURLWhenOneFails() async throws {
        let socket = FakeSocket()
        socket.refuse(ClientSocketError("connection refused"))
        async let connected = HubClient.connect(urls, options: testOptions(socket), logger: clientTestLogger)
        let server = try await socket.accept(session: "c9")
        let hub = try await connected
        #expect(socket.requests.map(\.url) == ["ws://node-a/ws", "ws://node-b/ws"])
        #expect(server.request.url == "ws://node-b/ws")
        #expect(hub.status == .open(session: "c9"))
        await hub.close()
    }

    @Test func everyURLFailingOnceThrowsWithEachFailureAndTriesNoMore() async throws {
        let socket = FakeSocket()
        socket.refuse(ClientSocketError("refused a"), ClientSocketError("refused b"), ClientSocketError("refused c"), ClientSocketError("unused"))
        do {
            _ = try await HubClient.connect(urls, options: testOptions(socket), logger: clientTestLogger)
            Issue.record("connected")
        } catch {
            #expect(error.code == .cannotConnect)
            #expect(error.message == "no URL worked: could not connect to ws://node-a/ws: refused a; could not connect to ws://node-b/ws: refused b; could not connect to ws://node-c/ws: refused c")
        }
        #expect(socket.requests.map(\.url) == urls)
        #expect(socket.isShutDown == false)  // the test's socket is not the client's to shut down
    }

    @Test func aRefusedTokenIsNotTriedOnTheOtherURLs() async throws {
        let socket = FakeSocket()
        socket.refuse(ClientSocketError("HTTP 401", httpStatus: 401))
        do {
            _ = try await HubClient.connect(urls, token: .static("t"), options: testOptions(socket), logger: clientTestLogger)
            Issue.record("connected")
        } catch {
            #expect(error.code == .unauthenticated)
        }
        #expect(socket.requests.map(\.url) == ["ws://node-a/ws"])
    }

    @Test func aDroppedConnectionReconnectsToTheNextURLRoundAndRound() async throws {
        let socket = FakeSocket()
        async let connected = HubClient.connect(urls, options: testOptions(socket), logger: clientTestLogger)
        let first = try await socket.accept(session: "a1")
        let hub = try await connected
        async let joined = hub.join("counter/x")
        try await first.answerJoin("counter/x", state: #"{"value":1,"isLoading":false}"#, version: 4)
        let counter = try await joined

        first.drop()
        let second = try await socket.accept(session: "b1")
        #expect(second.request.url == "ws://node-b/ws")
        let rejoin = try await second.next("join")
        #expect(rejoin["since"] == ["epoch": "e1", "version": 4])
        second.deliver(#"{"type":"resumed","reactor":"counter/x","ref":\#(rejoin["ref"]!.text),"epoch":"e1","version":4}"#)

        second.drop(code: 1001, reason: "shutting down")
        socket.refuse(ClientSocketError("connection refused"))  // node-c is down
        let fourth = try await socket.accept(session: "a2")
        #expect(socket.requests.map(\.url) == ["ws://node-a/ws", "ws://node-b/ws", "ws://node-c/ws", "ws://node-a/ws"])
        #expect(fourth.request.url == "ws://node-a/ws")
        #expect(counter.version == 4)
        await hub.close()
    }

    @Test func aStaticTokenRevokedByTheServerEndsTheClientWithTheReason() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket, token: .static("abc.def.ghi"))
        async let joined = hub.join("counter/x")
        try await server.answerJoin("counter/x", state: #"{"value":0,"isLoading":false}"#)
        let counter = try await joined
        var statuses = hub.statusUpdates.makeAsyncIterator()

        server.drop(code: 1008, reason: "revoked")
        var seen: [HubClientStatus] = []
        while let status = await statuses.next() {
            seen.append(status)
        }
        #expect(seen.first == .open(session: "c1"))
        #expect(seen.last == .closed)
        #expect(counter.endReason?.code == .unauthenticated)
        #expect(counter.endReason?.message.contains("closed with 1008: revoked") == true)
        #expect(socket.requests.count == 1)
        await hub.close()
    }

    @Test func noTokenAndAnAuthenticationTimeoutEndTheClientInsteadOfLooping() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket, hello: #","auth":"required""#)
        server.drop(code: 1008, reason: "authentication timeout")
        #expect(await eventually { hub.status == .closed })
        #expect(socket.requests.count == 1)
        await hub.close()
    }

    @Test func closeSendsACloseFrameWith1000() async throws {
        let socket = FakeSocket()
        let (hub, server) = try await connectClient(socket)
        await hub.close()
        #expect(server.closedByClient?.code == 1000)
        #expect(server.closedByClient?.reason == "client closed")
    }
}
