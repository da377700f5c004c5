import Foundation

/// Measures each HTTP request head a connection sends, on the raw bytes in the receive
/// tap, so that a head over `limit` is answered 431 (RFC 6585) instead of what
/// libwebsockets 4.1.6 does when its header space runs out: drop the connection without
/// a response (docs/conformance.md). It also reads how the head frames its body (RFC 9112
/// section 6), where a server and a proxy in front of it could disagree (request
/// smuggling): two different `Content-Length`s, `Content-Length` with
/// `Transfer-Encoding`, an unreadable `Content-Length`, or a folded header line are 400;
/// any `Transfer-Encoding` is 501 (the server reads only bodies of a known length). Each
/// closes the connection, since what follows cannot be told apart from a body.
///
/// A head is the request line and the header lines up to the empty line. A body announced
/// with `Content-Length` is skipped; without it the body is empty.
///
/// It also renames `Sec-WebSocket-Extensions` to `Sec-WebSocket-Extensionz` before lws
/// reads it (`renames`): libwebsockets 4.1.6 parses that header itself on every upgrade,
/// even with no extension of its own, and drops the connection without a response when
/// the value passes 255 bytes (lib/roles/ws/server-ws.c, lws_extension_server_handshake);
/// several permessage-deflate offers in one header pass it (Autobahn's 13.7). Under the
/// unknown name lws keeps the value whole, and the server reads its offers from there
/// (`ServerCore.deflateNegotiation`). A header line cut between two reads keeps its name.
struct RequestHeadMeter {
    /// The header renamed, and the name lws sees instead (same length, lower case as lws
    /// keeps unknown names).
    static let extensionsHeader: StaticString = "sec-websocket-extensions:"
    static let renamedExtensionsHeader: StaticString = "sec-websocket-extensionz:"
    /// What the bytes fed so far amount to.
    enum Verdict: Equatable {
        case withinLimit
        /// The current head passed `limit`: answer 431 and read nothing more from it.
        case overLimit
        /// The head frames its body in a way the server does not accept: answer `status`
        /// with `reason` and read nothing more from the connection.
        case refused(status: Int, reason: String)
    }

    private enum Phase: Equatable {
        case head(bytes: Int)
        case body(remaining: Int)
    }

    /// The largest head accepted, in bytes, CRLFs included.
    let limit: Int
    private var phase = Phase.head(bytes: 0)
    /// The start of the current line (enough for the names this meter reads).
    private var line: [UInt8] = []
    private var sawRequestLine = false
    /// The `Content-Length` values of the current head, as written (trimmed).
    private var contentLengths: [String] = []
    private var hasTransferEncoding = false
    private var hasFoldedLine = false
    /// The next byte begins a line.
    private var atLineStart = true
    /// Where the current line began in the bytes being fed; nil when it began in an
    /// earlier feed.
    private var lineStart: Int?
    /// Offsets, in the bytes of the last feed, of the bytes to change before lws reads
    /// them, with their new values (the renamed header names).
    private(set) var renames: [(offset: Int, byte: UInt8)] = []

    private static let lineKept = 64

    init(limit: Int) {
        self.limit = limit
    }

    /// Feeds the next bytes of the connection.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        guard let base = bytes.baseAddress else { return .withinLimit }
        var index = 0
        renames.removeAll(keepingCapacity: true)
        lineStart = atLineStart ? 0 : nil
        while index < bytes.count {
            switch phase {
            case .body(let remaining):
                let taken = min(remaining, bytes.count - index)
                index += taken
                phase = taken == remaining ? .head(bytes: 0) : .body(remaining: remaining - taken)
            case .head(let count):
                guard count < limit else { return .overLimit }
                if atLineStart {
                    lineStart = index
                    atLineStart = false
                }
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
                if newline != nil {
                    atLineStart = true
                    if let refusal = endLine() { return refusal }
                }
            }
        }
        return .withinLimit
    }

    /// Reads the line just ended; returns a refusal when it ends a head the server does
    /// not accept.
    private mutating func endLine() -> Verdict? {
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            // An empty line ends the head; before a request line it is ignored (RFC 9112 2.2).
            guard sawRequestLine else { return nil }
            defer {
                sawRequestLine = false
                contentLengths = []
                hasTransferEncoding = false
                hasFoldedLine = false
            }
            switch BodyFraming(contentLengths: contentLengths, transferEncoding: hasTransferEncoding, folded: hasFoldedLine) {
            case .length(let length):
                phase = length > 0 ? .body(remaining: length) : .head(bytes: 0)
                return nil
            case .refused(let status, let reason):
                return .refused(status: status, reason: reason)
            }
        }
        guard sawRequestLine else {
            sawRequestLine = true
            return nil
        }
        if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t") {
            hasFoldedLine = true
        } else if let value = Self.value(of: "content-length:", in: line) {
            contentLengths.append(String(decoding: value, as: UTF8.self).trimmingCharacters(in: .whitespaces))
        } else if Self.value(of: "transfer-encoding:", in: line) != nil {
            hasTransferEncoding = true
        } else if Self.value(of: Self.extensionsHeader, in: line) != nil, let lineStart {
            // The name's last letter: "extensions:" becomes "extensionz:".
            let at = Self.extensionsHeader.utf8CodeUnitCount - 2
            renames.append((lineStart + at, Self.renamedExtensionsHeader.utf8Start[at]))
        }
        return nil
    }

    /// The rest of `line` after `name` (lowercase, with its colon), compared without case.
    private static func value(of name: StaticString, in line: [UInt8]) -> ArraySlice<UInt8>? {
        let count = name.utf8CodeUnitCount
        guard line.count >= count else { return nil }
        let matches = (0..<count).allSatisfy { line[$0] | 0x20 == name.utf8Start[$0] | 0x20 }
        return matches ? line[count...] : nil
    }
}
