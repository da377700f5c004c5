#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation

/// One HTTP/1.1 request over a fresh TCP connection, for tests of the static files and
/// health endpoint.
public enum HTTPTestClient {
    /// A response: status, headers (names lowercased), body.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// Sends `method path` (with `headers` besides Host and Connection) and reads the
    /// whole response (by Content-Length).
    public static func request(
        port: Int,
        method: String = "GET",
        path: String,
        headers: [String: String] = [:],
        timeout: Double = 5
    ) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    try requestBlocking(port: port, method: method, path: path, headers: headers, timeout: timeout)
                })
            }
        }
    }

    private static func requestBlocking(
        port: Int, method: String, path: String, headers: [String: String], timeout: Double
    ) throws -> Response {
        let fd = try TCPSocket.connect(host: "127.0.0.1", port: port, timeout: timeout)
        defer { Glibc.close(fd) }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            request += "\(name): \(value)\r\n"
        }
        request += "\r\n"
        try TCPSocket.writeAll(fd, Array(request.utf8))
        let deadline = Date().addingTimeInterval(timeout)
        var buffer: [UInt8] = []
        while true {
            if let end = HTTPHead.endOfHead(buffer) {
                let head = HTTPHead(bytes: Array(buffer[..<end]))
                let length = method == "HEAD" ? 0 : Int(head.headers["content-length"] ?? "") ?? -1
                if length >= 0 && buffer.count - end >= length {
                    return Response(status: head.status, headers: head.headers, body: Array(buffer[end..<end + length]))
                }
            }
            guard deadline.timeIntervalSinceNow > 0 else { throw TestClientError("HTTP response timed out") }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = try TCPSocket.read(fd, into: &chunk, timeout: deadline.timeIntervalSinceNow)
            if n == 0 {
                guard let end = HTTPHead.endOfHead(buffer) else { throw TestClientError("connection closed before headers") }
                let head = HTTPHead(bytes: Array(buffer[..<end]))
                return Response(status: head.status, headers: head.headers, body: Array(buffer[end...]))
            }
            if n > 0 { buffer += chunk[0..<n] }
        }
    }
}
