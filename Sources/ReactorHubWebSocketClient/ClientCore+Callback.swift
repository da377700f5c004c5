import ReactorHubLibWebSockets

/// The client's side of the protocol callback: the wrapper's one C callback finds the
/// `ClientCore` through its context and forwards every reason here; this finds the
/// connection through the wsi's opaque user data (the connection's number). Reasons not
/// handled (nil) go to lws' default HTTP handler.
extension ClientCore {
    func lwsCallback(
        _ wsi: OpaquePointer, reason: LWSReason, user: UnsafeMutableRawPointer?, input: UnsafeMutableRawPointer?, length: Int
    ) -> Int32? {
        if reason == .eventWaitCancelled {
            drainInbox()
            return 0
        }
        guard let number = ClientConnection.number(from: LWS.opaqueUserData(wsi)),
              let connection = connections[number]
        else {
            return nil
        }
        // lws may call back from inside `lws_client_connect_via_info`, before it returned the
        // wsi; a wsi of an earlier attempt (another address) is not this attempt's.
        if connection.wsi == nil && connection.phase == .connecting {
            connection.wsi = wsi
        }
        guard connection.wsi == wsi else {
            return nil
        }

        switch reason {
        case .clientAppendHandshakeHeader:
            guard let input else { return 0 }
            let position = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
            return appendHeaders(connection, wsi: wsi, at: position, room: length)

        case .establishedClientHTTP:
            readUpgradeReply(connection, wsi: wsi)
            return 0

        case .clientEstablished:
            opened(connection)
            return 0

        case .clientReceive:
            let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
            return receive(chunk, on: connection)

        case .clientWriteable:
            return writable(connection)

        case .wsPeerInitiatedClose:
            let payload = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
            connection.peerClose = ClientCore.parseClosePayload(payload)
            return 0

        case .clientConnectionError:
            let message = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "connection error"
            connectionError(connection, message: message)
            return 0

        case .clientClosed:
            closed(connection)
            return 0

        case .wsiDestroy:
            // The wsi is freed and neither CLIENT_CLOSED nor CONNECTION_ERROR told us of its
            // end (a connection dropped during the upgrade ends as an HTTP client does).
            if connection.phase == .open {
                closed(connection)
            } else {
                connectionError(connection, message: "the connection closed before the upgrade completed")
            }
            return 0

        default:
            return nil
        }
    }
}
