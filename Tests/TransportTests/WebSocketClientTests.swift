import ReactorHubProtocol
import Foundation
import ReactorHubLocking
import TestSupport
import Testing
import ReactorHubWebSocketClient
import ReactorHubWebSocketServer

/// Records what a connection's delegate hears, and lets a test wait for it.
final class RecordingClientDelegate: WebSocketClientDelegate {
    enum Event: Equatable, Sendable {
        case opened(String?)
        case message(String)
        case closed(UInt16, String)
        case failed(WebSocketClientError)
    }

    private let events = Locked<[Event]>([])

    func webSocketOpened(_ id: ClientConnectionID, subprotocol: String?) {
        events.withLock { $0.append(.opened(subprotocol)) }
    }

    func webSocket(_ id: ClientConnectionID, received message: [UInt8]) {
        events.withLock { $0.append(.message(String(decoding: message, as: UTF8.self))) }
    }

    func webSocketClosed(_ id: ClientConnectionID, code: CloseCode, reason: String) {
        events.withLock { $0.append(.closed(code.rawValue, reason)) }
    }

    func webSocketFailed(_ id: ClientConnectionID, error: WebSocketClientError) {
        events.withLock { $0.append(.failed(error)) }
    }

    var all: [Event] { events.withLock { $0 } }

    /// Waits until `count` events arrived (or 10 s passed) and returns them all.
    @discardableResult
    func wait(for count: Int, timeout: Duration = .seconds(60)) async -> [Event] {
        let deadline = ContinuousClock.now + timeout
        while all.count < count && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return all
    }
}

/// The Python peer beside these tests (Peers/ws_peer.py): an independent WebSocket server.
struct PythonPeer {
    let process: ChildProcess
    let port: Int
    let certificate: String?

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/ws_peer.py").path

    static func start(tls: Bool = false) async throws -> PythonPeer {
        let process = try ChildProcess(await ChildProcess.python3(), [script] + (tls ? ["--tls"] : []))
        var certificate: String?
        if tls {
            certificate = try await process.line(after: "certificate ")
        }
        guard let port = Int(try await process.line(after: "listening ")) else {
            throw TestClientError("the peer printed no port")
        }
        return PythonPeer(process: process, port: port, certificate: certificate)
    }

    func url(_ path: String, scheme: String = "ws", host: String = "127.0.0.1") -> WebSocketURL {
        WebSocketURL("\(scheme)://\(host):\(port)\(path)")!
    }
}

@Suite(.serialized) struct WebSocketClientTests {
    func withClient(_ configuration: WebSocketClientConfiguration = WebSocketClientConfiguration(), _ body: (WebSocketClient) async throws -> Void) async throws {
        let client = try WebSocketClient.start(configuration: configuration, logger: transportTestLogger)
        do {
            try await body(client)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    @Test func opensWithTheOfferedSubprotocolAndExchangesMessagesInOrder() async throws {
        let peer = try await PythonPeer.start()
        try await withClient { client in
            let delegate = RecordingClientDelegate()
            let id = client.connect(WebSocketClientRequest(url: peer.url("/echo"), subprotocols: ["reactorhub.v1"]), delegate: delegate)
            #expect(await delegate.wait(for: 1) == [.opened("reactorhub.v1")])
            for index in 0..<50 {
                client.send(OutboundMessage(text: #"{"n":\#(index)}"#), on: id)
            }
            let events = await delegate.wait(for: 51)
            #expect(events.dropFirst() == (0..<50).map { .message(#"{"n":\#($0)}"#) }[...])
            client.close(id, code: .normal, reason: "done")
            #expect(await delegate.wait(for: 52).last == .closed(1000, "done"))
        }
    }

    @Test func sendsTheRequestHeadersAndTheHostHeader() async throws {
        let peer = try await PythonPeer.start()
        try await withClient { client in
            let delegate = RecordingClientDelegate()
            let request = WebSocketClientRequest(url: peer.url("/echo?x=1", host: "localhost"), headers: [("Authorization", "Bearer abc.def.ghi")])
            let id = client.connect(request, delegate: delegate)
            await delegate.wait(for: 1)
            client.send(OutboundMessage(text: "headers"), on: id)
            let events = await delegate.wait(for: 2)
            guard case .message(let text)? = events.last,
                  let headers = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
            else {
                Issue.record("no headers: \(events)")
                return
            }
            #expect(headers["authorization"] == "Bearer abc.def.ghi")
            #expect(headers["host"] == "localhost:\(peer.port)")
            #expect(headers["origin"] == nil)
        }
    }

    @Test func reassemblesAFragmentedMessageLargerThanTheReceiveBuffer() async throws {
        let peer = try await PythonPeer.start()
        try await withClient { client in
            let delegate = RecordingClientDelegate()
            let id = client.connect(WebSocketClientRequest(url: peer.url("/echo")), delegate: delegate)
            await delegate.wait(for: 1)
            client.send(OutboundMessage(text: "big:300000"), on: id)
            let long = String(repeating: "x", count: 200_000)
            client.send(OutboundMessage(text: long), on: id)
            let events = await delegate.wait(for: 3)
            guard events.count == 3, case .message(let big) = events[1], case .message(let echoed) = events[2] else {
                Issue.record("unexpected \(events.map { "\($0)".prefix(80) })")
                return
            }
            #expect(big.utf8.count == 300_000)
            #expect(big.hasPrefix("abcdefghijklmnopqrstuvwxyzabc"))
            #expect(echoed == long)
        }
    }

    @Test func reportsTheServersCloseCodeAndReason() async throws {
        let peer = try await PythonPeer.start()
        try await withClient { client in
            let delegate = RecordingClientDelegate()
            let id = client.connect(WebSocketClientRequest(url: peer.url("/echo")), delegate: delegate)
            await delegate.wait(for: 1)
            client.send(OutboundMessage(text: "close:1008:token expired"), on: id)
            #expect(await delegate.wait(for: 2).last == .closed(1008, "token expired"))
        }
    }

    @Test func sendsItsOwnCloseCodeAndReason() async throws {
        let peer = try await PythonPeer.start()
        try await withClient { client in
            let first = RecordingClientDelegate()
            let id = client.connect(WebSocketClientRequest(url: peer.url("/echo")), delegate: first)
            await first.wait(for: 1)
            client.close(id, code: CloseCode(rawValue: 4001), reason: "leaving now")
            #expect(await first.wait(for: 2).last == .closed(4001, "leaving now"))

            // The peer notes the close frame once its handler ends: ask until it has.
            let second = RecordingClientDelegate()
            let other = client.connect(WebSocketClientRequest(url: peer.url("/echo")), delegate: second)
            await second.wait(for: 1)
            var answer: RecordingClientDelegate.Event?
            for attempt in 1...50 {
                client.send(OutboundMessage(text: "lastclose"), on: other)
                answer = await second.wait(for: attempt + 1).last
                if answer != .message("none") { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(answer == .message("4001 leaving now"))
        }
    }

    @Test func aBinaryFrameFromTheServerClosesWith1003() async throws {
        let peer = try await PythonPeer.start()
        try await withClient { client in
            let delegate = RecordingClientDelegate()
            let id = client.connect(WebSocketClientRequest(url: peer.url("/echo")), delegate: delegate)
            await delegate.wait(for: 1)
            client.send(OutboundMessage(text: "binary"), on: id)
            let events = await delegate.wait(for: 2)
            #expect(events.last == .closed(1003, "binary frames are not accepted; send JSON text"))
        }
    }

    @Test func aRefusedUpgradeFailsWithItsHTTPStatus() async throws {
        let peer = try await PythonPeer.start()
        try await withClient { client in
            for status in [401, 403, 503] {
                let delegate = RecordingClientDelegate()
                client.connect(WebSocketClientRequest(url: peer.url("/refuse/\(status)")), delegate: delegate)
                let events = await delegate.wait(for: 1)
                guard case .failed(let error)? = events.first else {
                    Issue.record("status \(status): \(events)")
                    continue
                }
                #expect(error.code == .upgradeRefused)
                #expect(error.httpStatus == status)
                #expect(events.count == 1)
            }
        }
    }

    @Test func aClosedPortAndAnUnknownHostFailWithoutOpening() async throws {
        let peer = try await PythonPeer.start()
        let port = peer.port
        await peer.process.stop()
        try await withClient { client in
            let refused = RecordingClientDelegate()
            client.connect(WebSocketClientRequest(url: WebSocketURL("ws://127.0.0.1:\(port)/ws")!), delegate: refused)
            let events = await refused.wait(for: 1)
            guard case .failed(let error)? = events.first else {
                Issue.record("\(events)")
                return
            }
            #expect(error.code == .cannotConnect)

            let unknown = RecordingClientDelegate()
            client.connect(WebSocketClientRequest(url: WebSocketURL("ws://no-such-host.invalid/ws")!), delegate: unknown)
            guard case .failed(let lookup)? = await unknown.wait(for: 1).first else {
                Issue.record("\(unknown.all)")
                return
            }
            #expect(lookup.code == .unknownHost)
        }
    }

    @Test func closingAConnectionThatIsStillConnectingCancelsIt() async throws {
        let peer = try await PythonPeer.start()
        try await withClient { client in
            let delegate = RecordingClientDelegate()
            let id = client.connect(WebSocketClientRequest(url: peer.url("/slow")), delegate: delegate)
            try await Task.sleep(for: .milliseconds(300))
            client.close(id, code: .normal, reason: "")
            let events = await delegate.wait(for: 1)
            guard case .failed(let error)? = events.first else {
                Issue.record("\(events)")
                return
            }
            #expect(error.code == .cancelled)
        }
    }

    @Test func shutdownDropsOpenConnectionsAndRefusesNewOnes() async throws {
        let peer = try await PythonPeer.start()
        let client = try WebSocketClient.start(logger: transportTestLogger)
        let delegate = RecordingClientDelegate()
        client.connect(WebSocketClientRequest(url: peer.url("/echo")), delegate: delegate)
        await delegate.wait(for: 1)
        await client.shutdown()
        let events = delegate.all
        #expect(events.count == 2)
        if case .closed = events.last {} else { Issue.record("\(events)") }

        let late = RecordingClientDelegate()
        client.connect(WebSocketClientRequest(url: peer.url("/echo")), delegate: late)
        guard case .failed(let error)? = await late.wait(for: 1).first else {
            Issue.record("\(late.all)")
            return
        }
        #expect(error.code == .shutDown)
    }

    @Test func wssTrustsAGivenCertificateAuthorityOnly() async throws {
        let peer = try await PythonPeer.start(tls: true)
        var trusting = WebSocketClientConfiguration()
        trusting.caFile = peer.certificate
        try await withClient(trusting) { client in
            let delegate = RecordingClientDelegate()
            let id = client.connect(WebSocketClientRequest(url: peer.url("/echo", scheme: "wss", host: "localhost"), subprotocols: ["reactorhub.v1"]), delegate: delegate)
            let opening = await delegate.wait(for: 1)
            #expect(opening == [.opened("reactorhub.v1")], "\(opening)")
            client.send(OutboundMessage(text: "over TLS"), on: id)
            #expect(await delegate.wait(for: 2).last == .message("over TLS"))
        }
        try await withClient { client in
            let untrusted = RecordingClientDelegate()
            client.connect(WebSocketClientRequest(url: peer.url("/echo", scheme: "wss")), delegate: untrusted)
            guard case .failed(let error)? = await untrusted.wait(for: 1).first else {
                Issue.record("\(untrusted.all)")
                return
            }
            #expect(error.code == .cannotConnect)

            let insecure = RecordingClientDelegate()
            let id = client.connect(WebSocketClientRequest(url: peer.url("/echo", scheme: "wss"), allowsInsecureTLS: true), delegate: insecure)
            await insecure.wait(for: 1)
            client.send(OutboundMessage(text: "anyway"), on: id)
            #expect(await insecure.wait(for: 2) == [.opened(nil), .message("anyway")])
        }
    }

    @Test func urlsParseAsTheHandshakeNeedsThem() {
        let plain = WebSocketURL("ws://127.0.0.1:8080/ws")
        #expect(plain?.isSecure == false)
        #expect(plain?.host == "127.0.0.1")
        #expect(plain?.port == 8080)
        #expect(plain?.target == "/ws")
        #expect(WebSocketURL("wss://example.org")?.port == 443)
        #expect(WebSocketURL("wss://example.org")?.target == "/")
        #expect(WebSocketURL("ws://example.org?token=a.b")?.target == "/?token=a.b")
        #expect(WebSocketURL("ws://[::1]:9000/ws#frag")?.host == "::1")
        #expect(WebSocketURL("ws://[::1]:9000/ws#frag")?.target == "/ws")
        #expect(WebSocketURL("ws://[::1]:9000/ws")?.hostHeader == "[::1]:9000")
        #expect(WebSocketURL("http://example.org/ws") == nil)
        #expect(WebSocketURL("ws://:80/ws") == nil)
        #expect(WebSocketURL("ws://host:0/ws") == nil)
        #expect(WebSocketURL("ws://user@host/ws") == nil)
    }
}
