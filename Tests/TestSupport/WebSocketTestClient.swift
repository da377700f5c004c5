#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Foundation

/// A deliberately small RFC 6455 client over a raw TCP socket, written for the tests so
/// that they can also send what well-behaved clients never send: fragments, binary
/// frames, invalid UTF-8, oversized messages, or nothing at all.
///
/// Blocking socket calls run on the client's own Dispatch queue, never on the Swift
/// concurrency pool, so many clients can wait at once without starving the server's
/// reactors.
///
/// Safety of `@unchecked Sendable`: the socket and the read buffer are touched only on
/// `queue`, a serial queue; the handshake's response, written there and read by tests, is
/// under a lock.
public final class WebSocketTestClient: @unchecked Sendable {
    /// One received frame, control frames included.
    public enum Event: Equatable, Sendable {
        case text(String)
        case binary([UInt8])
        case close(code: UInt16?, reason: String)
        case ping([UInt8])
        case pong([UInt8])
    }

    /// The handshake response's status line and headers (names lowercased).
    public var responseStatus: Int { response.withLock { $0?.status ?? 0 } }
    public var responseStatusLine: String { response.withLock { $0?.statusLine ?? "" } }
    public var responseHeaders: [String: String] { response.withLock { $0?.headers ?? [:] } }
    /// Written on `queue` by the handshake, read from the tests' tasks: ThreadSanitizer does
    /// not see the continuation's resume as ordering the two (a race was reported under load).
    private let response = Mutex<HTTPHead?>(nil)

    /// The body of a refused handshake (by its Content-Length), read on demand.
    public func responseBody(timeout: Double = 5) async throws -> String {
        let length = Int(responseHeaders["content-length"] ?? "") ?? 0
        return try await run {
            let deadline = Date().addingTimeInterval(timeout)
            while self.buffer.count < length {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = try TCPSocket.read(self.fd, into: &chunk, timeout: deadline.timeIntervalSinceNow)
                if n == 0 { break }
                if n < 0 { throw TestClientError("timed out reading the response body") }
                self.buffer += chunk[0..<n]
            }
            return String(decoding: self.buffer.prefix(length), as: UTF8.self)
        }
    }

    private let fd: Int32
    private let queue = DispatchQueue(label: "ws-test-client")
    private var buffer: [UInt8] = []
    /// When true (the default), pings are answered with pongs and not returned.
    public var answersPings = true
    private var closeSent = false

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        Glibc.close(fd)
    }

    /// Connects and performs the opening handshake.
    public static func connect(
        port: Int,
        host: String = "127.0.0.1",
        path: String = "/ws",
        subprotocols: [String] = [],
        origin: String? = nil,
        timeout: Double = 5,
        receiveBuffer: Int? = nil
    ) async throws -> WebSocketTestClient {
        let fd = try TCPSocket.connect(host: host, port: port, timeout: timeout, receiveBuffer: receiveBuffer)
        let client = WebSocketTestClient(fd: fd)
        try await client.run {
            try client.handshake(host: host, port: port, path: path, subprotocols: subprotocols, origin: origin, timeout: timeout)
        }
        guard client.responseStatus == 101 else {
            throw TestClientError("handshake answered \(client.responseStatus)")
        }
        return client
    }

    /// Connects and performs the handshake, returning the client even when the server
    /// refused the upgrade (to inspect `responseStatus`). `headers` replaces the
    /// handshake's own headers of the same names (a nil value leaves the header out), so
    /// that a test can send a handshake RFC 6455 forbids.
    public static func attempt(
        port: Int,
        path: String = "/ws",
        subprotocols: [String] = [],
        origin: String? = nil,
        headers: KeyValuePairs<String, String?> = [:],
        timeout: Double = 5
    ) async throws -> WebSocketTestClient {
        let fd = try TCPSocket.connect(host: "127.0.0.1", port: port, timeout: timeout)
        let client = WebSocketTestClient(fd: fd)
        let replaced = Array(headers)
        try await client.run {
            try client.handshake(
                host: "127.0.0.1", port: port, path: path, subprotocols: subprotocols, origin: origin, headers: replaced,
                timeout: timeout
            )
        }
        return client
    }

    private func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    // MARK: Sending

    /// Sends one text message in one frame.
    public func send(_ text: String) async throws {
        try await sendFrame(opcode: 0x1, payload: Array(text.utf8))
    }

    /// Sends the texts `PREFIX0`, `PREFIX1`, … one every `interval` seconds until `done(sent)`
    /// is true; returns how many were sent. Like `answerPings`, it runs on the client's own
    /// queue, so a test task kept waiting for a thread does not leave the client silent.
    public func sendTexts(
        _ prefix: String, every interval: Double, until done: @escaping @Sendable (Int) -> Bool
    ) async throws -> Int {
        try await run {
            var sent = 0
            while !done(sent) {
                try TCPSocket.writeAll(self.fd, Self.encodeFrame(opcode: 0x1, payload: Array("\(prefix)\(sent)".utf8), fin: true))
                sent += 1
                usleep(UInt32(interval * 1_000_000))
            }
            return sent
        }
    }

    /// Sends one raw frame; `fin: false` starts or continues a fragmented message,
    /// `masked: false` sends it unmasked (which RFC 6455 forbids a client to do).
    public func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true, masked: Bool = true) async throws {
        let frame = Self.encodeFrame(opcode: opcode, payload: payload, fin: fin, masked: masked)
        try await run {
            if opcode == 0x8 { self.closeSent = true }
            try TCPSocket.writeAll(self.fd, frame)
        }
    }

    /// Sends bytes as they are: a hand-made frame header, a frame split anywhere.
    public func sendRaw(_ bytes: [UInt8]) async throws {
        try await run { try TCPSocket.writeAll(self.fd, bytes) }
    }

    /// Sends a text message split into `parts` frames (first text, then continuations).
    public func sendFragmented(_ text: String, parts: Int) async throws {
        let bytes = Array(text.utf8)
        let size = max(1, (bytes.count + parts - 1) / parts)
        var chunks: [[UInt8]] = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
        if chunks.isEmpty { chunks = [[]] }
        for (index, chunk) in chunks.enumerated() {
            try await sendFrame(opcode: index == 0 ? 0x1 : 0x0, payload: chunk, fin: index == chunks.count - 1)
        }
    }

    /// Sends a close frame with `code`.
    public func sendClose(code: UInt16 = 1000, reason: String = "") async throws {
        try await sendFrame(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xff)] + Array(reason.utf8))
    }

    /// Drops the TCP connection without a close frame (an RST, as a crashed peer).
    public func abort() async {
        _ = try? await run {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(self.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            shutdown(self.fd, Int32(SHUT_RDWR))
        }
    }

    /// Shrinks the receive buffer so that a client that stops reading backs up quickly.
    public func setReceiveBuffer(bytes: Int) {
        var size = Int32(bytes)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    // MARK: Receiving

    /// The next frame (pings answered automatically unless `answersPings` is false).
    public func receive(timeout: Double = 30) async throws -> Event {
        try await run { try self.receiveBlocking(timeout: timeout) }
    }

    /// Answers the next `count` pings (set `answersPings` to false first) with a pong that
    /// echoes the ping's payload, or an empty one; other frames are skipped.
    ///
    /// The whole exchange runs on the client's own queue, not on the test's task: on a
    /// loaded machine that task can wait longer for a thread of the shared pool than a
    /// keepalive timeout lasts, and a pong sent from it would come too late.
    public func answerPings(_ count: Int, echoingThePayload: Bool, timeout: Double = 30) async throws {
        try await run {
            var answered = 0
            while answered < count {
                guard case .ping(let payload) = try self.receiveBlocking(timeout: timeout) else { continue }
                let pong = Self.encodeFrame(opcode: 0xA, payload: echoingThePayload ? payload : [], fin: true)
                try TCPSocket.writeAll(self.fd, pong)
                answered += 1
            }
        }
    }

    /// Reads and drops what comes, answering pings (with `answersPings`), until `stopped()`
    /// is true, asking twice a second; on the client's own queue, as `answerPings`.
    public func keepReading(until stopped: @escaping @Sendable () -> Bool) async {
        _ = try? await run {
            while !stopped() {
                _ = try? self.receiveBlocking(timeout: 0.5)
            }
        }
    }

    /// The next text message; anything else is an error.
    public func receiveText(timeout: Double = 30) async throws -> String {
        let event = try await receive(timeout: timeout)
        guard case .text(let text) = event else { throw TestClientError("expected text, got \(event)") }
        return text
    }

    /// Waits for the server's close frame, skipping text; returns its code.
    public func receiveClose(timeout: Double = 30) async throws -> (code: UInt16?, reason: String) {
        while true {
            let event = try await receive(timeout: timeout)
            if case .close(let code, let reason) = event { return (code, reason) }
        }
    }

    /// True when the server has closed the TCP connection (reads end of stream).
    public func waitForEndOfStream(timeout: Double = 30) async throws -> Bool {
        try await run {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = try TCPSocket.read(self.fd, into: &chunk, timeout: deadline.timeIntervalSinceNow)
                if n == 0 { return true }
            }
            return false
        }
    }

    private func receiveBlocking(timeout: Double) throws -> Event {
        let deadline = Date().addingTimeInterval(timeout)
        var message: [UInt8] = []
        var messageOpcode: UInt8?
        while true {
            let frame = try readFrame(deadline: deadline)
            switch frame.opcode {
            case 0x9:
                if answersPings {
                    try TCPSocket.writeAll(fd, Self.encodeFrame(opcode: 0xA, payload: frame.payload, fin: true))
                    continue
                }
                return .ping(frame.payload)
            case 0xA:
                return .pong(frame.payload)
            case 0x8:
                if !closeSent {
                    // Echo the close, as RFC 6455 asks, so the server can finish at once.
                    closeSent = true
                    try? TCPSocket.writeAll(fd, Self.encodeFrame(opcode: 0x8, payload: Array(frame.payload.prefix(2)), fin: true))
                }
                let code = frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : nil
                let reason = frame.payload.count > 2 ? String(decoding: frame.payload[2...], as: UTF8.self) : ""
                return .close(code: code, reason: reason)
            default:
                if frame.opcode != 0 { messageOpcode = frame.opcode }
                message += frame.payload
                if frame.fin {
                    return messageOpcode == 0x2 ? .binary(message) : .text(String(decoding: message, as: UTF8.self))
                }
            }
        }
    }

    private func readFrame(deadline: Date) throws -> (opcode: UInt8, fin: Bool, payload: [UInt8]) {
        while true {
            if let parsed = Self.parseFrame(buffer) {
                buffer.removeFirst(parsed.consumed)
                return (parsed.opcode, parsed.fin, parsed.payload)
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw TestClientError("timed out waiting for a frame") }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = try TCPSocket.read(fd, into: &chunk, timeout: remaining)
            if n == 0 { throw TestClientError("connection closed by server") }
            if n > 0 { buffer += chunk[0..<n] }
        }
    }

    static func parseFrame(_ bytes: [UInt8]) -> (opcode: UInt8, fin: Bool, payload: [UInt8], consumed: Int)? {
        guard bytes.count >= 2 else { return nil }
        let fin = bytes[0] & 0x80 != 0
        let opcode = bytes[0] & 0x0f
        var length = Int(bytes[1] & 0x7f)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[$1]) }
            offset = 10
        }
        guard bytes.count >= offset + length else { return nil }
        return (opcode, fin, Array(bytes[offset..<offset + length]), offset + length)
    }

    /// A client frame: masked with a random key unless `masked` is false.
    public static func encodeFrame(opcode: UInt8, payload: [UInt8], fin: Bool, masked: Bool = true) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            frame.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xffff {
            frame += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        } else {
            frame.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                frame.append(UInt8((payload.count >> shift) & 0xff))
            }
        }
        guard masked else { return frame + payload }
        let mask: [UInt8] = (0..<4).map { _ in UInt8.random(in: 0...255) }
        frame += mask
        frame.reserveCapacity(frame.count + payload.count)
        for (index, byte) in payload.enumerated() {
            frame.append(byte ^ mask[index & 3])
        }
        return frame
    }

    private func handshake(
        host: String, port: Int, path: String, subprotocols: [String], origin: String?,
        headers replaced: [(key: String, value: String?)] = [], timeout: Double
    ) throws {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var fields: [(String, String?)] = [
            ("Host", "\(host):\(port)"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ]
        if !subprotocols.isEmpty { fields.append(("Sec-WebSocket-Protocol", subprotocols.joined(separator: ", "))) }
        if let origin { fields.append(("Origin", origin)) }
        for (name, value) in replaced {
            if let index = fields.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) {
                fields[index].1 = value
            } else {
                fields.append((name, value))
            }
        }
        var request = "GET \(path) HTTP/1.1\r\n"
        for case let (name, value?) in fields {
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        try TCPSocket.writeAll(fd, Array(request.utf8))
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = HTTPHead.endOfHead(buffer) {
                let head = HTTPHead(bytes: Array(buffer[..<end]))
                response.withLock { $0 = head }
                buffer.removeFirst(end)
                return
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = try TCPSocket.read(fd, into: &chunk, timeout: deadline.timeIntervalSinceNow)
            if n == 0 { throw TestClientError("connection closed during handshake") }
            buffer += chunk[0..<n]
        }
    }
}

/// A failure in the test client, with what happened.
public struct TestClientError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
