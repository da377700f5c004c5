internal import CLibWebSockets

/// The one C callback of the server's protocol. C callbacks cannot capture, so it finds
/// the `ServerCore` through the context's user pointer and forwards each reason it
/// handles; everything else goes to lws' default HTTP handler.
func reactorHubServiceCallback(
    _ wsi: OpaquePointer?,
    _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?,
    _ length: Int
) -> Int32 {
    guard let wsi,
          let context = lws_get_context(wsi),
          let opaqueCore = lws_context_user(context)
    else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let core = Unmanaged<ServerCore>.fromOpaque(opaqueCore).takeUnretainedValue()
    let session = user?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)

    switch reason {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        core.drainInbox()
        return 0

    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        // `user` holds the peer's address, `in` the accepted descriptor: the caps first;
        // a kept socket is then watched by the receive tap.
        guard core.filterAccepted(user) == 0 else { return 1 }
        core.socketAccepted(Int32(truncatingIfNeeded: Int(bitPattern: input)))
        return 0

    case LWS_CALLBACK_CLOSED_HTTP:
        core.socketClosing(lws_get_socket_fd(wsi))
        core.forgetExchange(wsi)
        core.streamClosed(wsi)
        return lws_callback_http_dummy(wsi, reason, user, input, length)

    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        return core.confirmUpgrade(wsi, upgrade: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) })

    case LWS_CALLBACK_ADD_HEADERS:
        // The 101 of an upgrade (the server binds no protocol to an HTTP mount).
        return core.addUpgradeHeaders(wsi, input)

    case LWS_CALLBACK_ESTABLISHED:
        return core.established(wsi, session: session)

    case LWS_CALLBACK_RECEIVE:
        guard let connection = ServerCore.connection(in: session) else { return -1 }
        core.heard(connection)
        let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        return core.receive(chunk, on: connection)

    case LWS_CALLBACK_RECEIVE_PONG:
        if let connection = ServerCore.connection(in: session) {
            core.heard(connection)
        }
        return 0

    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard let connection = ServerCore.connection(in: session) else { return -1 }
        return core.writable(connection)

    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if let connection = ServerCore.connection(in: session) {
            let payload = UnsafeMutableRawBufferPointer(start: input, count: input == nil ? 0 : length)
            core.peerInitiatedClose(connection, payload: payload)
        }
        return 0

    case LWS_CALLBACK_CLOSED:
        core.closed(session: session)
        return 0

    case LWS_CALLBACK_HTTP:
        let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
        return core.http(wsi, path: path)

    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) != 0 ? -1 : 0

    case LWS_CALLBACK_HTTP_BODY:
        return core.exchangeBody(wsi, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))

    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        return core.exchangeBodyComplete(wsi)

    case LWS_CALLBACK_HTTP_WRITEABLE:
        if let result = core.exchangeWritable(wsi) { return result }
        return lws_callback_http_dummy(wsi, reason, user, input, length)

    case LWS_CALLBACK_WSI_DESTROY:
        core.forgetExchange(wsi)
        core.streamClosed(wsi)
        core.socketClosed(wsi)
        return lws_callback_http_dummy(wsi, reason, user, input, length)

    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED:
        core.socketOpened(wsi)
        return 0

    case LWS_CALLBACK_TIMER:
        return core.socketTimer(wsi)

    case LWS_CALLBACK_RAW_ADOPT, LWS_CALLBACK_RAW_RX:
        // lws turns a `CONNECT` request into a raw socket and would keep it open forever;
        // ReactorHub serves no raw sockets (and is no proxy): close it.
        return -1

    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}
