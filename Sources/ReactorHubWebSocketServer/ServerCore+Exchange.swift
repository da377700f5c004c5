import ReactorHubProtocol
import ReactorHubLibWebSockets
import Foundation
import ReactorHubLogging

/// HTTP requests the handler answers (`handlesHTTP(path:)`), possibly later and from
/// another thread: the request (and its body) is read on the service thread, handed to
/// the handler, and its response written once it is posted back.
extension ServerCore {
    /// One request in flight; service thread only.
    struct Exchange {
        var wsi: OpaquePointer
        var request: HTTPRequest
        var response: HTTPResponse?
        var dispatched = false
        /// Close the connection after the response (a `POST` or `PUT` without a body).
        var closeAfter = false
        /// The `Origin` of a cross-origin request that `security.allowedOrigins` lists: its
        /// response carries the CORS headers.
        var corsOrigin: String?
    }

    private static func key(_ wsi: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(wsi))) }

    /// Starts an exchange at `LWS_CALLBACK_HTTP`: requests without a body go to the
    /// handler at once; others after `LWS_CALLBACK_HTTP_BODY_COMPLETION`. A `POST` or
    /// `PUT` without `Content-Length` has an empty body (RFC 9112 section 6.3; a
    /// `Transfer-Encoding` was refused before), so it goes at once too: lws would wait for a
    /// body until its timeout (`curl -X POST` sends none). lws still reads what follows on
    /// the connection as that body, so the connection is closed after the response.
    func beginExchange(_ wsi: OpaquePointer, method: String, path: String) -> Int32 {
        nextExchange += 1
        let id = nextExchange
        let origin = header(wsi, .origin)
        let verdict = origin.map { OriginPolicy(allowed: configuration.allowedOrigins, secure: configuration.tls != nil).verdict(origin: $0, host: header(wsi, .host)) }
        if verdict == .refused {
            shared.originsRejected.add(1, ordering: .relaxed)
            logger.info("refusing request: origin not allowed", metadata: ["origin": origin ?? "", "path": path, "peer": peerAddress(wsi)])
        }
        let request = HTTPRequest(
            method: method, path: path, query: queryArguments(wsi), authorization: header(wsi, .authorization),
            body: [], peerAddress: peerAddress(wsi), headers: requestHeaders(wsi, origin: origin), originAllowed: verdict != .refused
        )
        let expectsBody = method == "POST" || method == "PUT" || method == "PATCH"
        let announced = Int(header(wsi, .contentLength)?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        exchanges[id] = Exchange(
            wsi: wsi, request: request, closeAfter: expectsBody && announced == 0, corsOrigin: verdict == .listed ? origin : nil
        )
        exchangeByWSI[Self.key(wsi)] = id
        if !expectsBody || announced == 0 {
            dispatch(id)
        }
        return 0
    }

    /// A chunk of a request body arrived.
    func exchangeBody(_ wsi: OpaquePointer, _ chunk: UnsafeRawBufferPointer) -> Int32 {
        guard let id = exchangeByWSI[Self.key(wsi)], var exchange = exchanges[id], !exchange.dispatched else { return 0 }
        if exchange.request.body.count + chunk.count > configuration.maxRequestBodyBytes {
            // Answered now (by the handler, in its own words) and the connection closed after
            // it: the rest of the body is not read.
            exchange.request.body = []
            exchange.request.bodyOverLimit = true
            exchange.closeAfter = true
            exchanges[id] = exchange
            dispatch(id)
            return 0
        }
        exchange.request.body.append(contentsOf: chunk)
        exchanges[id] = exchange
        return 0
    }

    /// The request body is complete.
    func exchangeBodyComplete(_ wsi: OpaquePointer) -> Int32 {
        guard let id = exchangeByWSI[Self.key(wsi)], exchanges[id]?.dispatched == false else { return 0 }
        dispatch(id)
        return 0
    }

    private func dispatch(_ id: UInt64) {
        guard var exchange = exchanges[id] else { return }
        exchange.dispatched = true
        exchanges[id] = exchange
        handler.http(exchange.request) { [weak self] response in
            self?.post(.httpResponse(id, response))
        }
    }

    /// A response was posted (inbox drain, service thread).
    func exchangeAnswered(_ id: UInt64, _ response: HTTPResponse) {
        guard var exchange = exchanges[id] else { return }
        exchange.response = response
        exchanges[id] = exchange
        LWS.callbackOnWritable(exchange.wsi)
    }

    /// The socket of an exchange can take its response. Returns nil when the wsi is not
    /// one of ours (static files), else what lws expects.
    func exchangeWritable(_ wsi: OpaquePointer) -> Int32? {
        if let stream = streamByWSI[Self.key(wsi)].flatMap({ streams[$0] }) { return streamWritable(stream) }
        guard let id = exchangeByWSI[Self.key(wsi)], var exchange = exchanges[id] else { return nil }
        guard var response = exchange.response else { return 0 }
        forgetExchange(wsi)
        if let origin = exchange.corsOrigin {
            response.headers += [
                HTTPField("Access-Control-Allow-Origin", origin), HTTPField("Vary", "Origin"),
                HTTPField("Access-Control-Expose-Headers", "ETag, Retry-After, WWW-Authenticate"),
            ]
        }
        if let opening = response.stream {
            exchange.response = response
            return openStream(wsi, exchange, opening)
        }
        if exchange.closeAfter {
            respond(wsi, response, headers: [HTTPHeader(name: "connection:", value: "close")])
            return -1
        }
        return respondAndComplete(wsi, response, omitBody: exchange.request.method == "HEAD")
    }

    /// The headers of a request the handler reads (`HTTPRequest.headers`), by lower-case name.
    private func requestHeaders(_ wsi: OpaquePointer, origin: String?) -> [String: String] {
        var headers: [String: String] = [:]
        headers["origin"] = origin
        headers["accept"] = header(wsi, .accept)
        headers["content-type"] = header(wsi, .contentType)
        headers["if-none-match"] = header(wsi, .ifNoneMatch)
        headers["last-event-id"] = customHeader(wsi, "last-event-id:")
        headers["access-control-request-method"] = customHeader(wsi, "access-control-request-method:")
        return headers
    }

    /// A header lws has no index for (`name` with its colon, lower case), when sent.
    func customHeader(_ wsi: OpaquePointer, _ name: String) -> String? {
        let length = LWS.customHeaderLength(wsi, name, Int32(name.utf8.count))
        guard length >= 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        let copied = LWS.copyCustomHeader(wsi, &buffer, Int32(buffer.count), name, Int32(name.utf8.count))
        guard copied >= 0 else { return nil }
        return Self.text(buffer, count: copied)
    }

    /// The wsi is gone: whatever it waited for is dropped.
    func forgetExchange(_ wsi: OpaquePointer) {
        guard let id = exchangeByWSI.removeValue(forKey: Self.key(wsi)) else { return }
        exchanges[id] = nil
    }
}
