#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Blocking TCP helpers with timeouts, for the test clients.
enum TCPSocket {
    static func connect(host: String, port: Int, timeout: Double, receiveBuffer: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError("socket() failed: \(errno)") }
        if let receiveBuffer {
            // Before connecting, so that the TCP window is negotiated small.
            var size = Int32(receiveBuffer)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw TestClientError("connect to \(host):\(port) failed: errno \(error)")
        }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw TestClientError("send failed: errno \(errno)")
            }
            offset += n
        }
    }

    /// Reads what is available within `timeout` seconds: the count, 0 at end of stream,
    /// -1 when nothing arrived in time.
    static func read(_ fd: Int32, into chunk: inout [UInt8], timeout: Double) throws -> Int {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, min(timeout, 3600)) * 1000)
        let ready = poll(&poller, 1, milliseconds)
        if ready == 0 { return -1 }
        if ready < 0 {
            if errno == EINTR { return -1 }
            throw TestClientError("poll failed: errno \(errno)")
        }
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
        if n < 0 {
            if errno == ECONNRESET { return 0 }
            if errno == EINTR || errno == EAGAIN { return -1 }
            throw TestClientError("recv failed: errno \(errno)")
        }
        return n
    }
}

/// The status line and headers of an HTTP response.
struct HTTPHead {
    var status = 0
    var statusLine = ""
    var headers: [String: String] = [:]

    init(bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ")
        status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = value
        }
    }

    /// The index just after the blank line that ends the head, if it has arrived.
    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}
