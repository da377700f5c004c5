import Foundation

/// Measures each HTTP request head a connection sends, on the raw bytes in the receive
/// tap, so that a head over `limit` is answered 431 (RFC 6585) instead of what
/// libwebsockets 4.1.6 does when its header space runs out: drop the connection without
/// a response (docs/conformance.md).
///
/// A head is the request line and the header lines up to the empty line. A body announced
/// with `Content-Length` is skipped; after a head with `Transfer-Encoding` the connection
/// is no longer measured (lws' own header budget, set above `limit`, still applies).
struct RequestHeadMeter {
    /// What the bytes fed so far amount to.
    enum Verdict: Equatable {
        case withinLimit
        /// The current head passed `limit`: answer 431 and read nothing more from it.
        case overLimit
    }

    private enum Phase: Equatable {
        case head(bytes: Int)
        case body(remaining: Int)
        case unmetered
    }

    /// The largest head accepted, in bytes, CRLFs included.
    let limit: Int
    private var phase = Phase.head(bytes: 0)
    /// The start of the current line (enough for the names this meter reads).
    private var line: [UInt8] = []
    private var sawRequestLine = false
    private var contentLength = 0
    private var hasTransferEncoding = false

    private static let lineKept = 64

    init(limit: Int) {
        self.limit = limit
    }

    /// Feeds the next bytes of the connection.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        guard let base = bytes.baseAddress else { return .withinLimit }
        var index = 0
        while index < bytes.count {
            switch phase {
            case .unmetered:
                return .withinLimit
            case .body(let remaining):
                let taken = min(remaining, bytes.count - index)
                index += taken
                phase = taken == remaining ? .head(bytes: 0) : .body(remaining: remaining - taken)
            case .head(let count):
                guard count < limit else { return .overLimit }
                // The rest of this line, or as much as there is (at most what the limit
                // leaves): found with memchr, as a head is mostly long lines (a token in
                // the URL or in Authorization is hundreds of bytes).
                let end = min(bytes.count, index + (limit - count))
                let newline = memchr(base + index, Int32(UInt8(ascii: "\n")), end - index).map { UnsafeRawPointer($0) - base }
                let stop = newline.map { $0 + 1 } ?? end
                let kept = min((newline ?? stop) - index, max(0, Self.lineKept - line.count))
                if kept > 0 { line.append(contentsOf: bytes[index..<(index + kept)]) }
                phase = .head(bytes: count + (stop - index))
                index = stop
                if newline != nil { endLine() }
            }
        }
        return .withinLimit
    }

    private mutating func endLine() {
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            // An empty line ends the head; before a request line it is ignored (RFC 9112 2.2).
            guard sawRequestLine else { return }
            phase = hasTransferEncoding ? .unmetered : contentLength > 0 ? .body(remaining: contentLength) : .head(bytes: 0)
            sawRequestLine = false
            contentLength = 0
            hasTransferEncoding = false
            return
        }
        guard sawRequestLine else {
            sawRequestLine = true
            return
        }
        if let value = Self.value(of: "content-length:", in: line) {
            contentLength = Int(String(decoding: value, as: UTF8.self).trimmingCharacters(in: .whitespaces)) ?? 0
        } else if Self.value(of: "transfer-encoding:", in: line) != nil {
            hasTransferEncoding = true
        }
    }

    /// The rest of `line` after `name` (lowercase, with its colon), compared without case.
    private static func value(of name: StaticString, in line: [UInt8]) -> ArraySlice<UInt8>? {
        let count = name.utf8CodeUnitCount
        guard line.count >= count else { return nil }
        let matches = (0..<count).allSatisfy { line[$0] | 0x20 == name.utf8Start[$0] | 0x20 }
        return matches ? line[count...] : nil
    }
}
