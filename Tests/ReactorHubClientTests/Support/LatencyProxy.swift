#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ReactorHubLocking
import TestSupport

/// A TCP proxy between clients and a daemon on 127.0.0.1 that adds latency, can hold one
/// direction, drop every connection, and refuse new ones; it reads the WebSocket messages
/// that pass (unmasking the client's) so a test can wait for "the server answered" without
/// a sleep. One thread accepts; one thread per connection moves bytes both ways with
/// `poll`, writing each chunk once its latency has passed, in order.
final class LatencyProxy: Sendable {
    /// Client to server (`up`) or server to client (`down`).
    enum Direction: Int, Sendable {
        case up = 0
        case down = 1
    }

    /// A WebSocket text message that passed (or waits, held) in the proxy.
    struct Message: Sendable {
        let connection: Int
        let direction: Direction
        let text: String
    }

    private struct Shared {
        var latency: [Duration] = [.zero, .zero]
        var held = [false, false]
        var dropGeneration = 0
        var refusing = false
        var stopped = false
        var connections = 0
        var wakers: [Int: Int32] = [:]
        var messages: [Message] = []
        /// Bytes to replace once in what the server sends (`corrupt`).
        var corruptions: [(from: [UInt8], to: [UInt8])] = []
    }

    let port: Int
    private let listener: Int32
    private let wake: (read: Int32, write: Int32)
    private let shared = Locked(Shared())

    /// A proxy to `targetPort` with `latency` added each way.
    init(targetPort: Int, latency: Duration = .zero) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        guard listener >= 0 else { throw TestClientError("socket() failed: \(errno)") }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw TestClientError("bind/listen failed: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        wake = try Self.makePipe()
        shared.withLock { $0.latency = [latency, latency] }
        let (wake, shared) = (wake, shared)
        Thread.detachNewThread {
            Self.acceptLoop(listener: listener, wake: wake.read, targetPort: targetPort, shared: shared)
        }
    }

    deinit {
        stop()
    }

    /// The WebSocket URL of the daemon through the proxy.
    var url: String { "ws://127.0.0.1:\(port)/ws" }

    /// Sets the latency added to every chunk from now on, one way or both.
    func setLatency(_ latency: Duration, _ directions: [Direction] = [.up, .down]) {
        shared.withLock { shared in directions.forEach { shared.latency[$0.rawValue] = latency } }
        wakeAll()
    }

    /// Stops writing what comes in `direction` (it is still read, and its messages seen).
    func hold(_ direction: Direction) {
        shared.withLock { $0.held[direction.rawValue] = true }
    }

    /// Writes what was held, and what comes next, again.
    func release(_ direction: Direction) {
        shared.withLock { $0.held[direction.rawValue] = false }
        wakeAll()
    }

    /// Closes every connection now; what was held or delayed in it is lost.
    func dropConnections() {
        shared.withLock { $0.dropGeneration += 1 }
        wakeAll()
    }

    /// While refusing, a new connection is closed as soon as it is accepted.
    func refuse(_ refusing: Bool) {
        shared.withLock { $0.refusing = refusing }
    }

    /// Replaces the next `text` the server sends (within one read) with `replacement`, of
    /// the same length, once: a frame changed on its way, which the client cannot tell
    /// from one it applied wrongly.
    func corrupt(_ text: String, with replacement: String) {
        precondition(text.utf8.count == replacement.utf8.count, "a corruption keeps the frame's length")
        shared.withLock { $0.corruptions.append((Array(text.utf8), Array(replacement.utf8))) }
    }

    /// Connections accepted (and not refused) so far.
    var connectionCount: Int { shared.withLock { $0.connections } }

    /// The text messages seen in `direction`, in order, on every connection.
    func messages(_ direction: Direction) -> [Message] {
        shared.withLock { $0.messages.filter { $0.direction == direction } }
    }

    /// How many messages of protocol type `type` (`"ack"`, `"action"`) were seen in `direction`.
    func count(_ direction: Direction, type: String) -> Int {
        messages(direction).count { $0.text.contains(#""type":"\#(type)""#) }
    }

    /// Stops accepting and closes every connection.
    func stop() {
        let first = shared.withLock { shared -> Bool in
            defer { shared.stopped = true }
            return !shared.stopped
        }
        guard first else { return }
        dropConnections()
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    private func wakeAll() {
        let wakers = shared.withLock { Array($0.wakers.values) }
        var byte: UInt8 = 1
        for fd in wakers { _ = write(fd, &byte, 1) }
    }

    // MARK: Threads

    private static func acceptLoop(listener: Int32, wake: Int32, targetPort: Int, shared: Locked<Shared>) {
        defer {
            close(listener)
            close(wake)
        }
        var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        while !shared.withLock({ $0.stopped }) {
            guard poll(&fds, 2, 1000) > 0, fds[0].revents != 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            if shared.withLock({ $0.refusing || $0.stopped }) {
                close(client)
                continue
            }
            guard let server = try? connectLoopback(port: targetPort), let waker = try? makePipe() else {
                close(client)
                continue
            }
            let (number, generation) = shared.withLock { shared -> (Int, Int) in
                shared.connections += 1
                shared.wakers[shared.connections] = waker.write
                return (shared.connections, shared.dropGeneration)
            }
            Thread.detachNewThread {
                var pair = Pair(number: number, sockets: [client, server], wake: waker, generation: generation, shared: shared)
                pair.run()
            }
        }
    }

    /// One client connection and its connection to the daemon, moved by one thread.
    private struct Pair {
        let number: Int
        /// `sockets[0]` is the client's, `sockets[1]` the daemon's: what is read from
        /// `sockets[d]` goes in direction `d` and is written to the other.
        let sockets: [Int32]
        let wake: (read: Int32, write: Int32)
        let generation: Int
        let shared: Locked<Shared>
        var queues: [[(due: ContinuousClock.Instant, bytes: [UInt8])]] = [[], []]
        var readers = [MessageReader(masked: true), MessageReader(masked: false)]

        init(number: Int, sockets: [Int32], wake: (read: Int32, write: Int32), generation: Int, shared: Locked<Shared>) {
            self.number = number
            self.sockets = sockets
            self.wake = wake
            self.generation = generation
            self.shared = shared
        }

        mutating func run() {
            defer { finish() }
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let (latency, held, dropped) = shared.withLock { ($0.latency, $0.held, $0.dropGeneration != generation || $0.stopped) }
                if dropped { return }
                let now = ContinuousClock.now
                for direction in 0..<2 where !held[direction] {
                    while let first = queues[direction].first, first.due <= now {
                        queues[direction].removeFirst()
                        guard Self.writeAll(sockets[1 - direction], first.bytes) else { return }
                    }
                }
                var timeout: Int32 = 1000
                for direction in 0..<2 where !held[direction] {
                    if let first = queues[direction].first {
                        let wait = first.due - ContinuousClock.now
                        timeout = min(timeout, max(0, Int32(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000) + 1))
                    }
                }
                var fds = [
                    pollfd(fd: sockets[0], events: Int16(POLLIN), revents: 0),
                    pollfd(fd: sockets[1], events: Int16(POLLIN), revents: 0),
                    pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                ]
                guard poll(&fds, 3, timeout) >= 0 || errno == EINTR else { return }
                if fds[2].revents != 0 {
                    var drain = [UInt8](repeating: 0, count: 64)
                    _ = read(wake.read, &drain, 64)
                }
                for direction in 0..<2 where fds[direction].revents != 0 {
                    let count = recv(sockets[direction], &chunk, chunk.count, 0)
                    if count <= 0 { return }   // one side closed: close the other
                    var bytes = Array(chunk[0..<count])
                    if direction == Direction.down.rawValue { corrupt(&bytes) }
                    queues[direction].append((ContinuousClock.now + latency[direction], bytes))
                    let texts = readers[direction].feed(bytes)
                    if !texts.isEmpty {
                        let number = number
                        shared.withLock { shared in
                            shared.messages += texts.map { Message(connection: number, direction: Direction(rawValue: direction)!, text: $0) }
                        }
                    }
                }
            }
        }

        /// Applies the first corruption whose text `bytes` holds, and forgets it.
        func corrupt(_ bytes: inout [UInt8]) {
            shared.withLock { shared in
                for (index, corruption) in shared.corruptions.enumerated() {
                    guard let range = bytes.firstRange(of: corruption.from) else { continue }
                    bytes.replaceSubrange(range, with: corruption.to)
                    shared.corruptions.remove(at: index)
                    return
                }
            }
        }

        func finish() {
            shared.withLock { _ = $0.wakers.removeValue(forKey: number) }
            for fd in sockets {
                shutdown(fd, Int32(SHUT_RDWR))
                close(fd)
            }
            close(wake.read)
            close(wake.write)
        }

        static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    // MARK: Sockets

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        return address
    }

    private static func connectLoopback(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError("socket() failed: \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw TestClientError("connect to the daemon failed: \(errno)")
        }
        return fd
    }

    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw TestClientError("pipe() failed: \(errno)") }
        _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        return (fds[0], fds[1])
    }
}

/// The text messages in one direction of a WebSocket connection: the HTTP head first, then
/// RFC 6455 frames (masked from the client), fragments joined.
struct MessageReader {
    let masked: Bool
    private var buffer: [UInt8] = []
    private var headDone = false
    private var fragments: [UInt8] = []

    init(masked: Bool) {
        self.masked = masked
    }

    /// Takes the next bytes; returns the text messages they complete.
    mutating func feed(_ bytes: [UInt8]) -> [String] {
        buffer += bytes
        if !headDone {
            guard let end = Self.endOfHead(buffer) else { return [] }
            buffer.removeFirst(end)
            headDone = true
        }
        var texts: [String] = []
        while let (frame, used) = Self.frame(in: buffer) {
            buffer.removeFirst(used)
            if frame.opcode == 1 || frame.opcode == 0 {
                fragments += frame.payload
                if frame.fin {
                    texts.append(String(decoding: fragments, as: UTF8.self))
                    fragments = []
                }
            }
        }
        return texts
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index..<index + 4].elementsEqual([13, 10, 13, 10]) {
            return index + 4
        }
        return nil
    }

    private static func frame(in bytes: [UInt8]) -> (frame: (fin: Bool, opcode: UInt8, payload: [UInt8]), used: Int)? {
        guard bytes.count >= 2 else { return nil }
        let fin = bytes[0] & 0x80 != 0
        let opcode = bytes[0] & 0x0F
        let isMasked = bytes[1] & 0x80 != 0
        var length = Int(bytes[1] & 0x7F)
        var offset = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            offset = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
            offset = 10
        }
        var mask: [UInt8] = []
        if isMasked {
            guard bytes.count >= offset + 4 else { return nil }
            mask = Array(bytes[offset..<offset + 4])
            offset += 4
        }
        guard bytes.count >= offset + length else { return nil }
        var payload = Array(bytes[offset..<offset + length])
        if isMasked {
            for index in payload.indices { payload[index] ^= mask[index % 4] }
        }
        return ((fin, opcode, payload), offset + length)
    }
}
