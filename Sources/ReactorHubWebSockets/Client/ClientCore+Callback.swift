internal import CLibWebSockets

/// The one C callback of the client's protocol. It finds the `ClientCore` through the
/// context's user pointer and the connection through the wsi's opaque user data (the
/// connection's number), and forwards each reason it handles.
func reactorHubClientCallback(
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
    let core = Unmanaged<ClientCore>.fromOpaque(opaqueCore).takeUnretainedValue()

    if reason == LWS_CALLBACK_EVENT_WAIT_CANCELLED {
        core.drainInbox()
        return 0
    }
    guard let number = ClientConnection.number(from: lws_get_opaque_user_data(wsi)),
          let connection = core.connections[number]
    else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    // lws may call back from inside `lws_client_connect_via_info`, before it returned the
    // wsi; a wsi of an earlier attempt (another address) is not this attempt's.
    if connection.wsi == nil && connection.phase == .connecting {
        connection.wsi = wsi
    }
    guard connection.wsi == wsi else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }

    switch reason {
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
        guard let input else { return 0 }
        let position = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        return core.appendHeaders(connection, wsi: wsi, at: position, room: length)

    case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
        core.readUpgradeReply(connection, wsi: wsi)
        return 0

    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        core.opened(connection)
        return 0

    case LWS_CALLBACK_CLIENT_RECEIVE:
        let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        return core.receive(chunk, on: connection)

    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return core.writable(connection)

    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        let payload = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        connection.peerClose = ClientCore.parseClosePayload(payload)
        return 0

    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
        core.connectionError(connection, message: message)
        return 0

    case LWS_CALLBACK_CLIENT_CLOSED:
        core.closed(connection)
        return 0

    case LWS_CALLBACK_WSI_DESTROY:
        // The wsi is freed and neither CLIENT_CLOSED nor CONNECTION_ERROR told us of its
        // end (a connection dropped during the upgrade ends as an HTTP client does).
        if connection.phase == .open {
            core.closed(connection)
        } else {
            core.connectionError(connection, message: "the connection closed before the upgrade completed")
        }
        return 0

    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}
