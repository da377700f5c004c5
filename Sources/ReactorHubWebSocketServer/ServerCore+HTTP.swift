import ReactorHubProtocol
import ReactorHubLibWebSockets
import Foundation
import ReactorHubLogging

/// The HTTP side of the service thread: upgrade checks, `/healthz`, the handler's HTTP
/// endpoints, static files.
extension ServerCore {
    /// Decides on a WebSocket upgrade before lws performs it. Returns 0 to allow it, 1
    /// after writing a refusal (lws then completes the HTTP transaction).
    func confirmUpgrade(_ wsi: OpaquePointer, upgrade: String?) -> Int32 {
        guard upgrade?.lowercased() == "websocket" else { return 0 }
        if let refusal = framingRefusal(wsi) {
            respond(wsi, refusal)
            return -1
        }
        if let refusal = hostRefusal(wsi) {
            respond(wsi, refusal)
            return 1
        }
        if shared.sockets.withLock({ $0.isHealthCheckOnly(Self.key(of: wsi)) }), let refusal = healthCheckRefusal(wsi, path: requestPath(wsi)) {
            respond(wsi, refusal, headers: [HTTPHeader(name: "connection:", value: "close")])
            return -1
        }
        if let refusal = handshakeRefusal(wsi) {
            respond(wsi, HTTPResponse(status: Int(refusal.status), body: Array(refusal.body.utf8)), headers: refusal.headers)
            return 1
        }
        let path = requestPath(wsi)
        if path != configuration.webSocketPath && !isEchoPath(path) {
            return refuseUpgrade(wsi, 404, "no WebSocket endpoint at \(path); use \(configuration.webSocketPath)")
        }
        if shared.refusingConnections.load(ordering: .relaxed) {
            return refuseUpgrade(wsi, 503, "server is shutting down")
        }
        if !shared.upgrades.withLock({ $0.take() }) {
            noteRefusal("over limits.upgradesPerSecond")
            return refuseUpgrade(wsi, 503, "too many new connections per second (limits.upgradesPerSecond); retry shortly")
        }
        if shared.connectionCount.load(ordering: .relaxed) >= configuration.maxConnections {
            logger.info("refusing upgrade: connection limit reached", metadata: ["limit": String(configuration.maxConnections)])
            return refuseUpgrade(wsi, 503, "too many connections (limit \(configuration.maxConnections)); try again later")
        }
        if let offered = header(wsi, .protocol) {
            let names = offered.utf8.split(separator: UInt8(ascii: ",")).map { $0.trimmingOptionalWhitespace }
            if !names.isEmpty && !names.contains(where: { $0.elementsEqual(configuration.subprotocol.utf8) }) {
                return refuseUpgrade(wsi, 400, "unsupported subprotocol '\(offered)'; offer \(configuration.subprotocol) or none")
            }
        }
        let origin = header(wsi, .origin)
        let policy = OriginPolicy(allowed: configuration.allowedOrigins, secure: configuration.tls != nil)
        if let origin, !policy.allows(origin: origin, host: header(wsi, .host)) {
            shared.originsRejected.add(1, ordering: .relaxed)
            logger.info("refusing upgrade: origin not allowed", metadata: ["origin": origin, "peer": peerAddress(wsi)])
            return refuseUpgrade(wsi, 403, "origin \(origin) is not allowed (security.allowedOrigins)")
        }
        let request = UpgradeRequest(
            path: path, query: queryArguments(wsi), authorization: header(wsi, .authorization),
            origin: origin, peerAddress: peerAddress(wsi)
        )
        if case .refuse(let status, let reason) = handler.shouldAccept(request) {
            return refuseUpgrade(wsi, UInt32(clamping: status), reason)
        }
        return 0
    }

    /// Answers an upgrade with a refusal and a one-line reason.
    private func refuseUpgrade(_ wsi: OpaquePointer, _ status: UInt32, _ reason: String) -> Int32 {
        respond(wsi, HTTPResponse.text(Int(status), reason))
        return 1
    }

    /// The 421 for a request whose `Host` is not allowed (DNS rebinding), or nil.
    func hostRefusal(_ wsi: OpaquePointer) -> HTTPResponse? {
        let host = header(wsi, .host)
        guard !hosts.allows(host: host) else { return nil }
        noteRefusal("Host not in security.allowedHosts")
        return .text(421, "host '\(host ?? "")' is not served here (security.allowedHosts)")
    }

    /// The 400 or 501 for a request whose body framing the server does not accept
    /// (`BodyFraming`), from the headers as libwebsockets parsed them: the receive tap
    /// answers these itself on plain connections; this is the check under TLS, where the
    /// tap sees only ciphertext. The connection is closed after it.
    func framingRefusal(_ wsi: OpaquePointer) -> HTTPResponse? {
        let framing = BodyFraming(
            contentLengths: header(wsi, .contentLength).map { [$0] } ?? [],
            transferEncoding: LWS.headerLength(wsi, .transferEncoding) > 0,
            folded: false
        )
        guard case .refused(let status, let reason) = framing else { return nil }
        logger.info("refusing request: body framing", metadata: ["status": String(status), "reason": reason])
        return .text(status, reason)
    }

    /// Answers a plain HTTP request. Returns what lws expects from the callback.
    func http(_ wsi: OpaquePointer, path rawPath: String) -> Int32 {
        if let refusal = framingRefusal(wsi) {
            respond(wsi, refusal, headers: [HTTPHeader(name: "connection:", value: "close")])
            return -1
        }
        if let refusal = hostRefusal(wsi) {
            return respondAndComplete(wsi, refusal, omitBody: requestMethod(wsi) == "HEAD")
        }
        let path = rawPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        let method = requestMethod(wsi)
        if shared.sockets.withLock({ $0.isHealthCheckOnly(Self.key(of: wsi)) }) {
            // Lent by the descriptor reserve: one health check, then the socket goes back.
            let response = healthCheckRefusal(wsi, path: path) ?? health
            respond(wsi, response, headers: [HTTPHeader(name: "connection:", value: "close")], omitBody: method == "HEAD")
            return -1
        }
        if handler.handlesHTTP(path: path) {
            return beginExchange(wsi, method: method ?? "GET", path: path)
        }
        let isHead = method == "HEAD"
        guard method == "GET" || isHead else {
            return respondAndComplete(wsi, .text(405, "only GET and HEAD are served"))
        }
        if path == "/healthz" {
            return respondAndComplete(wsi, health, omitBody: isHead)
        }
        if path == configuration.webSocketPath || isEchoPath(path) {
            return respondAndComplete(
                wsi, .text(426, "connect with a WebSocket client (subprotocol \(configuration.subprotocol))"),
                headers: [HTTPHeader(name: "upgrade:", value: "websocket"), HTTPHeader(name: "sec-websocket-version:", value: OpeningHandshake.version)],
                omitBody: isHead
            )
        }
        guard let resolver, let file = resolver.resolve(path) else {
            return respondAndComplete(wsi, .text(404, "not found: \(path)"), omitBody: isHead)
        }
        let extra = "cache-control: no-cache\r\n"
        let result = LWS.serveFile(wsi, path: file.path, contentType: file.contentType, extraHeaders: extra)
        if result < 0 { return -1 }
        if result > 0 { return LWS.transactionCompleted(wsi) ? 0 : -1 }
        return 0
    }

    /// The answer of `/healthz`: 200 `ok`, or 503 once the server refuses connections.
    var health: HTTPResponse {
        shared.refusingConnections.load(ordering: .relaxed) ? .text(503, "shutting down") : .text(200, "ok")
    }

    /// Writes a complete response and ends the transaction.
    func respondAndComplete(_ wsi: OpaquePointer, _ response: HTTPResponse, headers: [HTTPHeader] = [], omitBody: Bool = false) -> Int32 {
        guard respond(wsi, response, headers: headers, omitBody: omitBody) else { return -1 }
        return LWS.transactionCompleted(wsi) ? 0 : -1
    }

    /// Writes status line, headers and body in one write, as lws does for its own status
    /// pages on HTTP/1 (lws buffers what the socket does not take at once). Returns false
    /// when the write failed. An event stream's head (`response.stream`) has no length: the
    /// body is what follows until the connection closes; 204 and 304 have none either.
    @discardableResult
    func respond(_ wsi: OpaquePointer, _ response: HTTPResponse, headers: [HTTPHeader] = [], omitBody: Bool = false) -> Bool {
        let headroom = LWSHeadroom.bytes
        let headers = headers + response.headers.map { HTTPHeader(name: $0.name.lowercased() + ":", value: $0.value) }
        let hasLength = response.stream == nil && response.status != 204 && response.status != 304
        var buffer = [UInt8](repeating: 0, count: headroom + 2048 + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } + response.body.count)
        return buffer.withUnsafeMutableBufferPointer { storage -> Bool in
            let start = storage.baseAddress! + headroom
            let end = storage.baseAddress! + storage.count
            var cursor: UnsafeMutablePointer<UInt8>? = start
            let status = UInt32(clamping: response.status)
            guard LWS.addStatus(wsi, status, &cursor, end),
                  correctStatusLine(wsi, status: status, start: start, cursor: &cursor, end: end),
                  addHeader(wsi, "content-type:", response.contentType, &cursor, end),
                  addHeader(wsi, "cache-control:", "no-store", &cursor, end),
                  headers.allSatisfy({ addHeader(wsi, $0.name, $0.value, &cursor, end) }),
                  !hasLength || LWS.addContentLength(wsi, UInt64(response.body.count), &cursor, end),
                  LWS.finalizeHeaders(wsi, &cursor, end),
                  var position = cursor
            else { return false }
            if !omitBody {
                position.update(from: response.body, count: response.body.count)
                position += response.body.count
            }
            let length = position - start
            return LWS.writeHTTP(wsi, start, length) == length
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
        return LWS.addHeader(wsi, name: name, value: valueBytes, valueLength: Int32(valueBytes.count), &cursor, end)
    }

    /// The request's path without its query string.
    func requestPath(_ wsi: OpaquePointer) -> String {
        let uri = header(wsi, .getURI) ?? "/"
        return uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
    }

    /// The request's method, from the header lws filled in.
    func requestMethod(_ wsi: OpaquePointer) -> String? {
        let methods: [(LWSToken, String)] = [
            (.getURI, "GET"), (.postURI, "POST"), (.headURI, "HEAD"),
            (.putURI, "PUT"), (.deleteURI, "DELETE"), (.optionsURI, "OPTIONS"),
            (.patchURI, "PATCH"),
        ]
        return methods.first { LWS.headerLength(wsi, $0.0) > 0 }?.1
    }

    /// The URI's arguments (lws keeps each `name=value` as a fragment, already decoded).
    ///
    /// The buffer is sized by lws' own count (all fragments together, so any one of them
    /// fits): a fixed large one, zeroed and freed on every upgrade, left memory that the
    /// connection's receive buffer then took over already resident.
    func queryArguments(_ wsi: OpaquePointer) -> [String: String] {
        let total = LWS.headerLength(wsi, .uriArguments)
        guard total > 0 else { return [:] }
        var arguments: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: Int(total) + 1)
        var index: Int32 = 0
        while true {
            let copied = LWS.copyHeaderFragment(wsi, &buffer, Int32(buffer.count), .uriArguments, index: index)
            guard copied >= 0 else { break }
            index += 1
            // Split at the first '=' as bytes: a token is hundreds of characters, and
            // splitting the String would walk its grapheme clusters.
            let text = Self.text(buffer, count: copied).utf8
            let equals = text.firstIndex(of: UInt8(ascii: "=")) ?? text.endIndex
            guard equals > text.startIndex else { continue }
            let value = equals < text.endIndex ? String(Substring(text[text.index(after: equals)...])) : ""
            arguments[String(Substring(text[..<equals]))] = value
        }
        return arguments
    }
}
