import Synchronization
import TestSupport
import Testing
import Transport

@Suite("WebSocket messages")
struct MessagingTests {
    @Test func textRoundTripsUnchanged() async throws {
        try await withServer { _, port, _ in
            let client = try await WebSocketTestClient.connect(port: port)
            for text in ["hello", "", "{\"type\":\"ping\",\"ref\":4}", "안녕하세요 🌍 \u{2028}"] {
                try await client.send(text)
                #expect(try await client.receiveText() == text)
            }
        }
    }

    @Test func fragmentedMessageIsReassembledIntoOne() async throws {
        try await withServer { _, port, delegate in
            let client = try await WebSocketTestClient.connect(port: port)
            let text = String(repeating: "fragmented-다중-", count: 300)
            try await client.sendFragmented(text, parts: 7)
            #expect(try await client.receiveText() == text)
            #expect(delegate.messageCount == 1)
        }
    }

    @Test func broadcastReachesFiftyClientsByteForByte() async throws {
        try await withServer(echo: false) { server, port, delegate in
            var clients: [WebSocketTestClient] = []
            for _ in 0..<50 {
                clients.append(try await WebSocketTestClient.connect(port: port))
            }
            #expect(await delegate.waitUntil { $0.opened.count == 50 })
            let ids = delegate.opened.map(\.id)
            let payloads = (0..<20).map { index in
                String(repeating: "m\(index)-✓", count: index == 19 ? 40_000 : index * 37 + 1)
            }
            for payload in payloads {
                server.send(OutboundMessage(text: payload), to: ids)
            }
            try await withThrowingTaskGroup(of: [String].self) { group in
                for client in clients {
                    group.addTask {
                        var received: [String] = []
                        for _ in payloads { received.append(try await client.receiveText()) }
                        return received
                    }
                }
                var checked = 0
                for try await received in group {
                    #expect(received == payloads)
                    checked += 1
                }
                #expect(checked == 50)
            }
        }
    }

    @Test func sendsFromManyThreadsAllArriveInEachSendersOrder() async throws {
        try await withServer(echo: false) { server, port, delegate in
            let client = try await WebSocketTestClient.connect(port: port)
            #expect(await delegate.waitUntil { $0.opened.count == 1 })
            let id = try #require(delegate.opened.first?.id)
            await withTaskGroup(of: Void.self) { group in
                for sender in 0..<8 {
                    group.addTask {
                        for index in 0..<500 {
                            server.send(OutboundMessage(text: "\(sender):\(index)"), to: id)
                        }
                    }
                }
            }
            var next = [Int](repeating: 0, count: 8)
            for _ in 0..<4000 {
                let parts = try await client.receiveText().split(separator: ":").map { Int($0)! }
                #expect(parts[1] == next[parts[0]])
                next[parts[0]] += 1
            }
            #expect(next == [Int](repeating: 500, count: 8))
        }
    }

    @Test func queuedBytesAreExposedPerConnection() async throws {
        try await withServer(echo: false, configure: { $0.outboundQueueBytes = 64 << 20 }) { server, port, delegate in
            let client = try await WebSocketTestClient.connect(port: port)
            client.setReceiveBuffer(bytes: 4096)
            #expect(await delegate.waitUntil { $0.opened.count == 1 })
            let id = try #require(delegate.opened.first?.id)
            #expect(server.queuedBytes(of: id) == 0)
            let chunk = String(repeating: "x", count: 10_000)
            for _ in 0..<1500 {
                server.send(OutboundMessage(text: chunk), to: id)
            }
            // The client reads nothing: the kernel buffers fill and the rest stays queued.
            #expect(await delegate.waitUntil { _ in (server.queuedBytes(of: id) ?? 0) > 100_000 })
            #expect(server.queuedBytes(of: ConnectionID(rawValue: 9999)) == nil)
            _ = client
        }
    }
}

/// Joins the texts of consecutive state updates with "+", in order.
struct JoiningMerger: OutboundMerger {
    func merge(_ messages: [OutboundMessage]) -> OutboundMessage? {
        guard messages.allSatisfy({ $0.attachment is String }) else { return nil }
        let text = messages.map { $0.attachment as! String }.joined(separator: "+")
        return OutboundMessage(Array(text.utf8), kind: messages[0].kind, attachment: text)
    }
}

@Suite("Merging piled-up state updates")
struct MergingTests {
    @Test func updatesThatPiledUpBehindASlowReaderLeaveMergedAndInOrder() async throws {
        var configuration = TransportConfiguration()
        configuration.port = 0
        configuration.webRoot = nil
        configuration.outboundQueueBytes = 64 << 20
        let delegate = RecordingDelegate(echo: false)
        let server = WebSocketServer(configuration: configuration)
        let port = try server.start(delegate: delegate, merger: JoiningMerger())
        let client = try await WebSocketTestClient.connect(port: port, receiveBuffer: 4096)
        #expect(await delegate.waitUntil { $0.opened.count == 1 })
        let id = try #require(delegate.opened.first?.id)
        let stream = StreamID(rawValue: 7)
        let parts = (0..<800).map { "u\($0)-" + String(repeating: "p", count: 200) }
        // In eight separate bursts (separate inbox drains) while the client reads nothing:
        // updates that arrived together are written one by one; these pile up across drains.
        for burst in 0..<8 {
            for part in parts[(burst * 100)..<((burst + 1) * 100)] {
                server.send(OutboundMessage(Array(part.utf8), kind: .stateUpdate(stream), attachment: part), to: id)
            }
            try await Task.sleep(for: .milliseconds(30))
        }
        server.send(OutboundMessage(text: "reply"), to: id)
        var received: [String] = []
        while received.last != "reply" {
            received.append(try await client.receiveText())
        }
        #expect(received.dropLast().flatMap { $0.split(separator: "+").map(String.init) } == parts)
        #expect(received.count < parts.count + 1)
        #expect(server.mergedWrites > 0)
        await server.shutdown(grace: .milliseconds(200))
    }
}
