internal import CLibWebSockets
import Foundation
import Logging

/// The HTTP side of the service thread: upgrade checks, `/healthz`, static files.
extension ServerCore {
    /// Decides on a WebSocket upgrade before lws performs it. Returns 0 to allow it, 1
    /// after writing a refusal (lws then completes the HTTP transaction).
    func confirmUpgrade(_ wsi: OpaquePointer, upgrade: String?) -> Int32 {
        guard upgrade?.lowercased() == "websocket" else { return 0 }
        if let refusal = handshakeRefusal(wsi) {
            respond(wsi, status: refusal.status, body: refusal.body, headers: refusal.headers)
            return 1
        }
        let path = requestPath(wsi)
        if path != configuration.webSocketPath && !isEchoPath(path) {
            respond(wsi, status: 404, body: "no WebSocket endpoint at \(path); use \(configuration.webSocketPath)\n")
            return 1
        }
        if refusingConnections.load(ordering: .relaxed) {
            respond(wsi, status: 503, body: "server is shutting down\n")
            return 1
        }
        if connectionCount.load(ordering: .relaxed) >= configuration.maxConnections {
            logger.info("refusing upgrade: connection limit reached", metadata: ["limit": String(configuration.maxConnections)])
            respond(wsi, status: 503, body: "too many connections (limit \(configuration.maxConnections)); try again later\n")
            return 1
        }
        if let offered = header(wsi, rh_lws_token_protocol()) {
            let names = offered.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if !names.isEmpty && !names.contains(configuration.subprotocol) {
                respond(
                    wsi,
                    status: 400,
                    body: "unsupported subprotocol '\(offered)'; offer \(configuration.subprotocol) or none\n"
                )
                return 1
            }
        }
        return 0
    }

    /// Answers a plain HTTP request. Returns what lws expects from the callback.
    func http(_ wsi: OpaquePointer, path rawPath: String) -> Int32 {
        let path = rawPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        let isHead = rh_lws_hdr_total_length(wsi, rh_lws_token_head_uri()) > 0
        let isGet = rh_lws_hdr_total_length(wsi, rh_lws_token_get_uri()) > 0
        guard isGet || isHead else {
            return respondAndComplete(wsi, status: 405, body: "only GET and HEAD are served\n")
        }
        if path == "/healthz" {
            if refusingConnections.load(ordering: .relaxed) {
                return respondAndComplete(wsi, status: 503, body: "shutting down\n", omitBody: isHead)
            }
            return respondAndComplete(wsi, status: 200, body: "ok\n", omitBody: isHead)
        }
        if path == configuration.webSocketPath || isEchoPath(path) {
            return respondAndComplete(
                wsi, status: 426, body: "connect with a WebSocket client (subprotocol \(configuration.subprotocol))\n",
                headers: [HTTPHeader(name: "upgrade:", value: "websocket"), HTTPHeader(name: "sec-websocket-version:", value: UpgradeRequest.version)],
                omitBody: isHead
            )
        }
        guard let resolver, let file = resolver.resolve(path) else {
            return respondAndComplete(wsi, status: 404, body: "not found: \(path)\n", omitBody: isHead)
        }
        let extra = "cache-control: no-cache\r\n"
        let result = lws_serve_http_file(wsi, file.path, file.contentType, extra, Int32(extra.utf8.count))
        if result < 0 { return -1 }
        if result > 0 { return lws_http_transaction_completed(wsi) != 0 ? -1 : 0 }
        return 0
    }

    /// Writes a complete plain-text response and ends the transaction.
    private func respondAndComplete(
        _ wsi: OpaquePointer, status: UInt32, body: String, headers: [HTTPHeader] = [], omitBody: Bool = false
    ) -> Int32 {
        guard respond(wsi, status: status, body: body, headers: headers, omitBody: omitBody) else { return -1 }
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0
    }

    /// Writes status line, headers and body in one write, as lws does for its own status
    /// pages on HTTP/1. Returns false when the write failed.
    @discardableResult
    func respond(_ wsi: OpaquePointer, status: UInt32, body: String, headers: [HTTPHeader] = [], omitBody: Bool = false) -> Bool {
        let bodyBytes = Array(body.utf8)
        let headroom = OutboundMessage.headroom
        var buffer = [UInt8](repeating: 0, count: headroom + 2048 + bodyBytes.count)
        return buffer.withUnsafeMutableBufferPointer { storage -> Bool in
            let start = storage.baseAddress! + headroom
            let end = storage.baseAddress! + storage.count
            var cursor: UnsafeMutablePointer<UInt8>? = start
            guard lws_add_http_header_status(wsi, status, &cursor, end) == 0,
                  correctStatusLine(wsi, status: status, start: start, cursor: &cursor, end: end),
                  addHeader(wsi, "content-type:", "text/plain; charset=utf-8", &cursor, end),
                  addHeader(wsi, "cache-control:", "no-store", &cursor, end),
                  headers.allSatisfy({ addHeader(wsi, $0.name, $0.value, &cursor, end) }),
                  lws_add_http_header_content_length(wsi, lws_filepos_t(bodyBytes.count), &cursor, end) == 0,
                  lws_finalize_http_header(wsi, &cursor, end) == 0,
                  var position = cursor
            else { return false }
            if !omitBody {
                position.update(from: bodyBytes, count: bodyBytes.count)
                position += bodyBytes.count
            }
            let length = position - start
            return rh_lws_write_http(wsi, start, length) == length
        }
    }

    private func addHeader(
        _ wsi: OpaquePointer,
        _ name: String,
        _ value: String,
        _ cursor: inout UnsafeMutablePointer<UInt8>?,
        _ end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        let valueBytes = Array(value.utf8)
        return lws_add_http_header_by_name(wsi, name, valueBytes, Int32(valueBytes.count), &cursor, end) == 0
    }

    /// The request's path without its query string.
    func requestPath(_ wsi: OpaquePointer) -> String {
        let uri = header(wsi, rh_lws_token_get_uri()) ?? "/"
        return uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
    }
}
