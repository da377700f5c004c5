import CBenchSSL
import CBenchSys
import Glibc
import ReactorHubDeflate

/// What a benchmark does with the connections of a `Loop`. Calls come from the loop's
/// thread, one at a time.
protocol Workload: AnyObject {
    /// The WebSocket handshake completed.
    func opened(_ connection: Connection)
    /// One whole text (or binary) message; `payload` is valid only during the call.
    /// `now` is the monotonic time at which the bytes were read.
    func received(_ connection: Connection, _ payload: UnsafeMutablePointer<UInt8>, _ count: Int, now: UInt64)
    /// The connection failed or was closed (by the server or after an error).
    func closed(_ connection: Connection, reason: String)
    /// A timer registered with `Loop.addTimer` fired `expirations` times.
    func timerFired(_ tag: Int, expirations: UInt64)
}

/// One client connection: a non-blocking socket speaking RFC 6455 as a client (over TLS for
/// `wss://`).
final class Connection {
    enum Phase { case idle, connecting, securing, handshaking, open, closed }

    let id: Int
    var fd: Int32 = -1
    var phase: Phase = .idle
    /// Bytes read but not yet parsed (a partial frame or handshake).
    var pending: [UInt8] = []
    /// Bytes to write once the socket is writable again.
    var outgoing: [UInt8] = []
    /// The message being reassembled from fragments.
    var fragments: [UInt8] = []
    var fragmenting = false
    /// The message being read came compressed (RSV1 on its first frame: permessage-deflate).
    var compressed = false
    /// Frame bytes (headers and payloads as sent) of the message being read, and of the last
    /// one handed to the workload.
    var messageWireBytes = 0
    var lastMessageWireBytes = 0
    /// The server accepted permessage-deflate: text messages go compressed too.
    var deflates = false
    var watchingWrites = false
    /// The TLS session (`SSL *`) of a `wss://` connection.
    var tls: OpaquePointer?

    init(id: Int) {
        self.id = id
    }
}

/// Where to connect, and how to upgrade.
struct Endpoint {
    var host: String = "127.0.0.1"
    var port: UInt16 = 8080
    var path: String = "/ws"
    /// Offered in `Sec-WebSocket-Protocol`, when not empty.
    var subprotocol: String = ""
    /// `wss://`: TLS (libssl) under the WebSocket.
    var secure = false
    /// Tokens: `?token=` in the path, an `Authorization: Bearer` header, or (idle only) an
    /// `auth` message after the upgrade; connection i presents tokens[i % count] (none when
    /// empty).
    var tokens: [String] = []
    var tokenInHeader = false
    var tokenInMessage = false
    /// Offer permessage-deflate (`--deflate`); compressed messages are inflated before the
    /// workload sees them.
    var deflate = false

    /// Parses `ws://HOST:PORT/PATH` or `wss://HOST:PORT/PATH`.
    init?(url: String, subprotocol: String) {
        var rest = Substring(url)
        if rest.hasPrefix("wss://") {
            secure = true
            rest = rest.dropFirst(6)
        } else if rest.hasPrefix("ws://") {
            rest = rest.dropFirst(5)
        } else {
            return nil
        }
        let authority: Substring
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            path = String(rest[slash...])
        } else {
            authority = rest
            path = "/"
        }
        if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            guard let parsed = UInt16(authority[authority.index(after: colon)...]) else { return nil }
            port = parsed
        } else {
            host = String(authority)
            port = secure ? 443 : 80
        }
        if host == "localhost" { host = "127.0.0.1" }
        self.subprotocol = subprotocol
    }

    /// The same endpoint with `name=value` added to the path's query.
    func adding(argument name: String, value: String) -> Endpoint {
        var endpoint = self
        endpoint.path += (path.contains("?") ? "&" : "?") + name + "=" + value
        return endpoint
    }
}

/// A single-threaded epoll loop over many client connections. Level-triggered; one read
/// of up to 256 KiB per ready socket per turn, so every connection gets its turn.
final class Loop<W: Workload> {
    let epoll: Int32
    let endpoint: Endpoint
    /// One address per endpoint (several: the nodes of a cluster).
    private var addresses: [sockaddr_in] = []
    /// Per endpoint, the upgrade request of each token (one, without tokens).
    private var requests: [[[UInt8]]] = []
    /// The endpoint of each connection, by id.
    private var endpointOf: [Int] = []
    /// Whether each endpoint is `wss://`.
    private var secureEndpoint: [Bool] = []
    private(set) var connections: [Connection] = []
    unowned(unsafe) var workload: W! = nil
    private let readBuffer: UnsafeMutablePointer<UInt8>
    private let readCapacity = 256 * 1024
    private var frameBuffer: [UInt8] = []
    /// Inflates compressed messages (one at a time: the loop has one thread), into `inflated`.
    private let inflater = MessageInflater(windowBits: 15, pieceBytes: 65536)
    private var inflated: [UInt8] = []
    /// Compresses what the clients send, within the window the server allows (10 bits),
    /// without context takeover (made when a server first accepts the extension).
    private lazy var deflater = MessageDeflater(windowBits: 10)
    private var events: UnsafeMutablePointer<epoll_event>
    private let maxEvents = 1024
    private var timers: [Int32] = []
    private static var timerBase: UInt64 { 1 << 62 }
    private var maskState: UInt32 = 0x9E37_79B9
    /// The TLS client context for `wss://` (certificates are not verified: loopback, self-signed).
    private let tlsContext: OpaquePointer?

    /// Re-arm TCP_QUICKACK after every read.
    var quickAck = getenv("BENCH_QUICKACK").map { String(cString: $0) == "1" } ?? false
    /// TCP congestion control for the client's sockets (nil: the system's default).
    var congestionControl: String? = getenv("BENCH_CC").map { String(cString: $0) }

    /// Connections that failed to connect or upgrade.
    private(set) var failures = 0
    /// The first failure, for the report.
    private(set) var firstFailure: String?

    convenience init(endpoint: Endpoint, count: Int) {
        self.init(endpoints: [endpoint], count: count) { _ in 0 }
    }

    /// Connections `0..<count`, connection `i` to `endpoints[endpointOf(i)]`.
    init(endpoints: [Endpoint], count: Int, endpointOf choose: (Int) -> Int) {
        precondition(!endpoints.isEmpty)
        self.endpoint = endpoints[0]
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epoll >= 0, "epoll_create1 failed")
        readBuffer = .allocate(capacity: readCapacity)
        events = .allocate(capacity: maxEvents)
        for endpoint in endpoints {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = endpoint.port.bigEndian
            inet_pton(AF_INET, endpoint.host, &address.sin_addr)
            addresses.append(address)
            requests.append(Self.upgradeRequests(for: endpoint))
            secureEndpoint.append(endpoint.secure)
        }
        endpointOf = (0..<count).map { min(max(0, choose($0)), endpoints.count - 1) }
        if endpoints.contains(where: \.secure) {
            tlsContext = bench_ssl_client_context()
            precondition(tlsContext != nil, "SSL_CTX_new failed")
        } else {
            tlsContext = nil
        }
        connections.reserveCapacity(count)
        for index in 0..<count {
            connections.append(Connection(id: index))
        }
    }

    /// The upgrade request of each token (one, without tokens).
    private static func upgradeRequests(for endpoint: Endpoint) -> [[UInt8]] {
        (endpoint.tokens.isEmpty || endpoint.tokenInMessage ? [nil] : endpoint.tokens.map(Optional.some)).map { token in
            var target = endpoint.path
            if let token, !endpoint.tokenInHeader {
                target += (target.contains("?") ? "&" : "?") + "token=" + token
            }
            var text = "GET \(target) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\n"
            text += "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            if let token, endpoint.tokenInHeader {
                text += "Authorization: Bearer \(token)\r\n"
            }
            text += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            if !endpoint.subprotocol.isEmpty {
                text += "Sec-WebSocket-Protocol: \(endpoint.subprotocol)\r\n"
            }
            if endpoint.deflate {
                text += "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
            }
            text += "\r\n"
            return Array(text.utf8)
        }
    }

    deinit {
        for connection in connections where connection.fd >= 0 {
            close(connection.fd)
        }
        for connection in connections where connection.tls != nil {
            SSL_free(connection.tls)
        }
        if let tlsContext { SSL_CTX_free(tlsContext) }
        for timer in timers { close(timer) }
        close(epoll)
        readBuffer.deallocate()
        events.deallocate()
    }

    // MARK: Connecting

    private func request(for connection: Connection) -> [UInt8] {
        let ofEndpoint = requests[endpointOf[connection.id]]
        return ofEndpoint[connection.id % ofEndpoint.count]
    }

    /// Starts a non-blocking connect; the handshake follows when the socket is writable.
    func connect(_ connection: Connection) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            return fail(connection, "socket: \(String(cString: strerror(errno)))")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let congestion = congestionControl {
            _ = congestion.withCString { setsockopt(fd, Int32(IPPROTO_TCP), TCP_CONGESTION, $0, socklen_t(strlen($0))) }
        }
        connection.fd = fd
        connection.phase = .connecting
        var address = addresses[endpointOf[connection.id]]
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 && errno != EINPROGRESS {
            return fail(connection, "connect: \(String(cString: strerror(errno)))")
        }
        connection.watchingWrites = true
        bench_epoll_add(epoll, fd, UInt32(BENCH_EPOLLOUT | BENCH_EPOLLIN), UInt64(connection.id))
    }

    private func fail(_ connection: Connection, _ reason: String) {
        if connection.phase != .open { failures += 1 }
        if firstFailure == nil { firstFailure = reason }
        shut(connection, reason: reason)
    }

    /// Closes the socket and tells the workload.
    func shut(_ connection: Connection, reason: String) {
        guard connection.phase != .closed else { return }
        if connection.fd >= 0 {
            close(connection.fd)
            connection.fd = -1
        }
        if let tls = connection.tls {
            SSL_free(tls)
            connection.tls = nil
        }
        connection.phase = .closed
        connection.pending = []
        connection.outgoing = []
        workload.closed(connection, reason: reason)
    }

    // MARK: Timers

    /// A periodic timer (first expiry after `periodNanos`); the workload's `timerFired`
    /// gets `tag` and the number of expirations since the last call.
    func addTimer(tag: Int, periodNanos: UInt64) {
        let fd = bench_timerfd(Int64(periodNanos))
        precondition(fd >= 0, "timerfd_create failed")
        bench_epoll_add(epoll, fd, UInt32(BENCH_EPOLLIN), Self.timerBase + UInt64(timers.count) << 32 + UInt64(tag))
        timers.append(fd)
    }

    /// Stops and closes every timer.
    func removeTimers() {
        for timer in timers { close(timer) }
        timers = []
    }

    // MARK: The loop

    /// One `epoll_wait` (at most `timeoutMs`) and the handling of what it returned;
    /// returns the number of events handled.
    @discardableResult
    func turn(timeoutMs: Int32) -> Int {
        let count = epoll_wait(epoll, events, Int32(maxEvents), timeoutMs)
        guard count > 0 else { return 0 }
        for index in 0..<Int(count) {
            let flags = bench_event_flags(events, Int32(index))
            let key = bench_event_key(events, Int32(index))
            if key >= Self.timerBase {
                let slot = Int((key - Self.timerBase) >> 32)
                let tag = Int(key & 0xFFFF_FFFF)
                var expirations: UInt64 = 0
                if slot < timers.count, read(timers[slot], &expirations, 8) == 8 {
                    workload.timerFired(tag, expirations: expirations)
                }
                continue
            }
            let connection = connections[Int(key)]
            if connection.phase == .closed { continue }
            if connection.phase == .securing {
                secure(connection)
                continue
            }
            if flags & UInt32(BENCH_EPOLLOUT | BENCH_EPOLLERR) != 0 {
                writable(connection)
            }
            if connection.phase != .closed && flags & UInt32(BENCH_EPOLLIN | BENCH_EPOLLHUP | BENCH_EPOLLERR) != 0 {
                readable(connection)
            }
        }
        return Int(count)
    }

    private func writable(_ connection: Connection) {
        if connection.phase == .connecting {
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(connection.fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 {
                return fail(connection, "connect: \(String(cString: strerror(error)))")
            }
            if secureEndpoint[endpointOf[connection.id]], let tlsContext {
                guard let tls = SSL_new(tlsContext) else { return fail(connection, "SSL_new failed") }
                connection.tls = tls
                SSL_set_fd(tls, connection.fd)
                SSL_set_connect_state(tls)
                connection.phase = .securing
                return secure(connection)
            }
            connection.phase = .handshaking
            connection.outgoing = request(for: connection)
        }
        flush(connection)
    }

    /// Drives the TLS handshake; once done, the WebSocket upgrade request goes out.
    private func secure(_ connection: Connection) {
        guard let tls = connection.tls else { return }
        let result = SSL_do_handshake(tls)
        if result == 1 {
            connection.phase = .handshaking
            connection.outgoing = request(for: connection)
            return flush(connection)
        }
        switch SSL_get_error(tls, result) {
        case bench_ssl_want_read(): watchWrites(connection, false)
        case bench_ssl_want_write(): watchWrites(connection, true)
        default: fail(connection, "TLS handshake: \(tlsError())")
        }
    }

    private func tlsError() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        bench_ssl_error_text(&buffer, buffer.count)
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? String(cString: strerror(errno)) : text
    }

    /// Writes through TLS or to the socket; -1 with `errno` EAGAIN when it would block.
    private func send(_ connection: Connection, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        guard let tls = connection.tls else { return write(connection.fd, bytes, count) }
        let written = SSL_write(tls, bytes, Int32(clamping: count))
        if written > 0 { return Int(written) }
        switch SSL_get_error(tls, written) {
        case bench_ssl_want_read(), bench_ssl_want_write(): errno = EAGAIN
        default: errno = EIO
        }
        return -1
    }

    /// Reads from TLS or the socket into `buffer`; 0 at the end, -1 with `errno` EAGAIN when
    /// nothing is there. Through TLS it reads record after record while a whole record (16 KiB
    /// at most) still fits, so that nothing already decrypted waits without the socket being
    /// readable again.
    private func receive(_ connection: Connection, _ buffer: UnsafeMutablePointer<UInt8>, _ capacity: Int) -> Int {
        guard let tls = connection.tls else { return read(connection.fd, buffer, capacity) }
        var total = 0
        while capacity - total >= 16 * 1024 + 256 {
            let count = SSL_read(tls, buffer + total, Int32(clamping: capacity - total))
            if count > 0 {
                total += Int(count)
                continue
            }
            let error = SSL_get_error(tls, count)
            if total > 0 { break }
            switch error {
            case bench_ssl_want_read(), bench_ssl_want_write(): errno = EAGAIN; return -1
            case bench_ssl_zero_return(): return 0
            default: errno = EIO; return -1
            }
        }
        return total
    }

    /// Writes what is queued; watches for writability while something is left.
    private func flush(_ connection: Connection) {
        while !connection.outgoing.isEmpty {
            let written = connection.outgoing.withUnsafeBytes { send(connection, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EAGAIN || errno == EINTR { break }
                return fail(connection, "write: \(String(cString: strerror(errno)))")
            }
            connection.outgoing.removeFirst(written)
        }
        watchWrites(connection, connection.outgoing.isEmpty == false)
    }

    private func watchWrites(_ connection: Connection, _ watch: Bool) {
        guard connection.watchingWrites != watch, connection.fd >= 0 else { return }
        connection.watchingWrites = watch
        let events = UInt32(BENCH_EPOLLIN | (watch ? BENCH_EPOLLOUT : 0))
        bench_epoll_mod(epoll, connection.fd, events, UInt64(connection.id))
    }

    private func readable(_ connection: Connection) {
        let count = receive(connection, readBuffer, readCapacity)
        if count == 0 {
            return fail(connection, "closed by the server")
        }
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            return fail(connection, "read: \(String(cString: strerror(errno)))")
        }
        if quickAck {
            // Acknowledge at once: with delayed ACKs, a server's small frames wait on its
            // congestion window (BBR keeps it small on loopback) and the flow stalls.
            var one: Int32 = 1
            setsockopt(connection.fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let now = monotonicNanos()
        if connection.pending.isEmpty {
            let used = parse(connection, readBuffer, count, now: now)
            if used < count, connection.phase != .closed {
                connection.pending.append(contentsOf: UnsafeBufferPointer(start: readBuffer + used, count: count - used))
            }
        } else {
            connection.pending.append(contentsOf: UnsafeBufferPointer(start: readBuffer, count: count))
            var held = connection.pending
            connection.pending = []
            let used = held.withUnsafeMutableBufferPointer { buffer in
                parse(connection, buffer.baseAddress!, buffer.count, now: now)
            }
            if used < held.count, connection.phase != .closed {
                held.removeFirst(used)
                connection.pending = held
            }
        }
    }

    /// Parses the handshake reply or frames; returns the bytes consumed.
    private func parse(_ connection: Connection, _ base: UnsafeMutablePointer<UInt8>, _ count: Int, now: UInt64) -> Int {
        var offset = 0
        if connection.phase == .handshaking {
            guard let end = findHeaderEnd(base, count) else { return 0 }
            let status = String(decoding: UnsafeBufferPointer(start: base, count: min(count, 12)), as: UTF8.self)
            guard status.hasPrefix("HTTP/1.1 101") else {
                let line = String(decoding: UnsafeBufferPointer(start: base, count: min(count, 80)), as: UTF8.self)
                fail(connection, "upgrade refused: \(line.split(separator: "\r\n").first ?? "")")
                return count
            }
            connection.phase = .open
            let head = String(decoding: UnsafeBufferPointer(start: base, count: end), as: UTF8.self).lowercased()
            connection.deflates = head.contains("sec-websocket-extensions: permessage-deflate")
            workload.opened(connection)
            offset = end
        }
        while connection.phase == .open {
            let available = count - offset
            if available < 2 { break }
            let head = base + offset
            let first = head[0]
            let second = head[1]
            var headerLength = 2
            var length = Int(second & 0x7F)
            if length == 126 {
                if available < 4 { break }
                length = Int(head[2]) << 8 | Int(head[3])
                headerLength = 4
            } else if length == 127 {
                if available < 10 { break }
                length = 0
                for index in 2..<10 { length = length << 8 | Int(head[index]) }
                headerLength = 10
            }
            let masked = second & 0x80 != 0
            if masked { headerLength += 4 }
            if available < headerLength + length { break }
            let payload = head + headerLength
            if masked {
                let key = head + headerLength - 4
                for index in 0..<length { payload[index] ^= key[index & 3] }
            }
            offset += headerLength + length
            if first & 0x08 == 0 { connection.messageWireBytes += headerLength + length }
            frame(connection, opcode: first & 0x0F, final: first & 0x80 != 0, compressed: first & 0x40 != 0, payload, length, now: now)
        }
        return offset
    }

    private func findHeaderEnd(_ base: UnsafeMutablePointer<UInt8>, _ count: Int) -> Int? {
        guard count >= 4 else { return nil }
        for index in 0...(count - 4)
        where base[index] == 13 && base[index + 1] == 10 && base[index + 2] == 13 && base[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    private func frame(
        _ connection: Connection, opcode: UInt8, final: Bool, compressed: Bool, _ payload: UnsafeMutablePointer<UInt8>, _ length: Int,
        now: UInt64
    ) {
        switch opcode {
        case 0x1, 0x2:
            connection.compressed = compressed
            if final {
                deliver(connection, payload, length, now: now)
            } else {
                connection.fragments = Array(UnsafeBufferPointer(start: payload, count: length))
                connection.fragmenting = true
            }
        case 0x0:
            guard connection.fragmenting else { return }
            connection.fragments.append(contentsOf: UnsafeBufferPointer(start: payload, count: length))
            if final {
                var message = connection.fragments
                connection.fragments = []
                connection.fragmenting = false
                message.withUnsafeMutableBufferPointer { buffer in
                    deliver(connection, buffer.baseAddress!, buffer.count, now: now)
                }
            }
        case 0x8:
            var code = "no status"
            if length >= 2 { code = String(Int(payload[0]) << 8 | Int(payload[1])) }
            let reason = String(decoding: UnsafeBufferPointer(start: payload + min(2, length), count: max(0, length - 2)), as: UTF8.self)
            sendFrame(connection, opcode: 0x8, UnsafeRawBufferPointer(start: payload, count: min(length, 2)))
            shut(connection, reason: "close \(code) \(reason)")
        case 0x9:
            sendFrame(connection, opcode: 0xA, UnsafeRawBufferPointer(start: payload, count: length))
        default:
            break
        }
    }

    /// Hands a whole message to the workload, inflated first when it came compressed.
    private func deliver(_ connection: Connection, _ payload: UnsafeMutablePointer<UInt8>, _ length: Int, now: UInt64) {
        connection.lastMessageWireBytes = connection.messageWireBytes
        connection.messageWireBytes = 0
        guard connection.compressed else {
            return workload.received(connection, payload, length, now: now)
        }
        inflated.removeAll(keepingCapacity: true)
        let outcome = inflater.inflate(UnsafeRawBufferPointer(start: payload, count: length), final: true) { piece in
            inflated.append(contentsOf: piece)
            return true
        }
        guard outcome == .inflated else { return fail(connection, "a compressed message does not inflate: \(outcome)") }
        inflated.withUnsafeMutableBufferPointer { buffer in
            workload.received(connection, buffer.baseAddress!, buffer.count, now: now)
        }
    }

    // MARK: Sending

    /// Sends one text message (masked, as a client must), compressed when the server
    /// accepted permessage-deflate (as browsers send theirs).
    func sendText(_ connection: Connection, _ bytes: UnsafeRawBufferPointer) {
        guard connection.deflates else { return sendFrame(connection, opcode: 0x1, bytes) }
        deflater.compress(bytes) { compressed in
            sendFrame(connection, opcode: 0x1, compressed, compressed: true)
        }
    }

    private func sendFrame(_ connection: Connection, opcode: UInt8, _ bytes: UnsafeRawBufferPointer, compressed: Bool = false) {
        guard connection.phase == .open || connection.phase == .handshaking, connection.fd >= 0 else { return }
        let length = bytes.count
        frameBuffer.removeAll(keepingCapacity: true)
        frameBuffer.append(0x80 | (compressed ? 0x40 : 0) | opcode)
        if length < 126 {
            frameBuffer.append(0x80 | UInt8(length))
        } else if length < 65536 {
            frameBuffer.append(0x80 | 126)
            frameBuffer.append(UInt8(length >> 8))
            frameBuffer.append(UInt8(length & 0xFF))
        } else {
            frameBuffer.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frameBuffer.append(UInt8((length >> shift) & 0xFF)) }
        }
        // xorshift32: a fresh, unpredictable-enough masking key per frame.
        maskState ^= maskState << 13
        maskState ^= maskState >> 17
        maskState ^= maskState << 5
        let key = [UInt8(maskState >> 24), UInt8((maskState >> 16) & 0xFF), UInt8((maskState >> 8) & 0xFF), UInt8(maskState & 0xFF)]
        frameBuffer.append(contentsOf: key)
        for index in 0..<length {
            frameBuffer.append(bytes[index] ^ key[index & 3])
        }
        if !connection.outgoing.isEmpty || connection.phase != .open {
            connection.outgoing.append(contentsOf: frameBuffer)
            return
        }
        let written = frameBuffer.withUnsafeBytes { send(connection, $0.baseAddress, $0.count) }
        if written == frameBuffer.count { return }
        if written < 0 {
            if errno != EAGAIN && errno != EINTR {
                return fail(connection, "write: \(String(cString: strerror(errno)))")
            }
            connection.outgoing.append(contentsOf: frameBuffer)
        } else {
            connection.outgoing.append(contentsOf: frameBuffer[written...])
        }
        watchWrites(connection, true)
    }

    /// Closes every open connection with a close frame (best effort) and the socket.
    func closeAll() {
        for connection in connections where connection.phase != .closed && connection.phase != .idle {
            if connection.phase == .open {
                let code: [UInt8] = [0x03, 0xE8]
                code.withUnsafeBytes { sendFrame(connection, opcode: 0x8, $0) }
            }
            if connection.fd >= 0 {
                close(connection.fd)
                connection.fd = -1
            }
            if let tls = connection.tls {
                SSL_free(tls)
                connection.tls = nil
            }
            connection.phase = .closed
        }
    }
}
