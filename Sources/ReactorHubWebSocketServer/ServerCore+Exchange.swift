import ReactorHubEngine
internal import CLibWebSockets
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
        let request = HTTPRequest(
            method: method, path: path, query: queryArguments(wsi), authorization: header(wsi, rh_lws_token_authorization()),
            body: [], peerAddress: peerAddress(wsi)
        )
        let expectsBody = method == "POST" || method == "PUT"
        let announced = Int(header(wsi, rh_lws_token_content_length())?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
        exchanges[id] = Exchange(wsi: wsi, request: request, closeAfter: expectsBody && announced == 0)
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
            exchange.dispatched = true
            exchange.response = .text(413, "request body over \(configuration.maxRequestBodyBytes) bytes")
            exchanges[id] = exchange
            lws_callback_on_writable(wsi)
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
        lws_callback_on_writable(exchange.wsi)
    }

    /// The socket of an exchange can take its response. Returns nil when the wsi is not
    /// one of ours (static files), else what lws expects.
    func exchangeWritable(_ wsi: OpaquePointer) -> Int32? {
        guard let id = exchangeByWSI[Self.key(wsi)], let exchange = exchanges[id] else { return nil }
        guard let response = exchange.response else { return 0 }
        forgetExchange(wsi)
        if exchange.closeAfter {
            respond(wsi, response, headers: [HTTPHeader(name: "connection:", value: "close")])
            return -1
        }
        return respondAndComplete(wsi, response, omitBody: exchange.request.method == "HEAD")
    }

    /// The wsi is gone: whatever it waited for is dropped.
    func forgetExchange(_ wsi: OpaquePointer) {
        guard let id = exchangeByWSI.removeValue(forKey: Self.key(wsi)) else { return }
        exchanges[id] = nil
    }
}
