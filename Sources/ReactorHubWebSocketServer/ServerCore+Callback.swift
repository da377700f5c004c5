import ReactorHubLibWebSockets

/// The server's side of the protocol callback: the wrapper's one C callback finds the
/// `ServerCore` through its context and forwards every reason here; the reasons not
/// handled (nil) go to lws' default HTTP handler.
extension ServerCore {
    func lwsCallback(
        _ wsi: OpaquePointer, reason: LWSReason, user: UnsafeMutableRawPointer?, input: UnsafeMutableRawPointer?, length: Int
    ) -> Int32? {
        let session = user?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)

        switch reason {
        case .eventWaitCancelled:
            drainInbox()
            return 0

        case .filterNetworkConnection:
            // `user` holds the peer's address, `in` the accepted descriptor: the caps first;
            // a socket kept here is then watched by the receive tap. One handed to another
            // service thread is closed here (lws closes its descriptor; the copy lives on).
            let fd = Int32(truncatingIfNeeded: Int(bitPattern: input))
            switch filterAccepted(user, fd: fd) {
            case .refuse, .handedOff:
                return 1
            case .serveHere:
                socketAccepted(fd)
                return 0
            }

        case .closedHTTP:
            socketClosing(LWS.socketFD(wsi))
            forgetExchange(wsi)
            streamClosed(wsi)
            return nil

        case .httpConfirmUpgrade:
            return confirmUpgrade(wsi, upgrade: input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) })

        case .addHeaders:
            // The 101 of an upgrade (the server binds no protocol to an HTTP mount).
            return addUpgradeHeaders(wsi, input)

        case .established:
            return established(wsi, session: session)

        case .receive:
            guard let connection = ServerCore.connection(in: session) else { return -1 }
            heard(connection)
            let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
            return receive(chunk, on: connection)

        case .receivePong:
            if let connection = ServerCore.connection(in: session) {
                heard(connection)
            }
            return 0

        case .serverWriteable:
            guard let connection = ServerCore.connection(in: session) else { return -1 }
            return writable(connection)

        case .wsPeerInitiatedClose:
            if let connection = ServerCore.connection(in: session) {
                let payload = UnsafeMutableRawBufferPointer(start: input, count: input == nil ? 0 : length)
                peerInitiatedClose(connection, payload: payload)
            }
            return 0

        case .closed:
            closed(session: session)
            return 0

        case .http:
            let path = input.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "/"
            return http(wsi, path: path)

        case .httpFileCompletion:
            return LWS.transactionCompleted(wsi) ? 0 : -1

        case .httpBody:
            return exchangeBody(wsi, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))

        case .httpBodyCompletion:
            return exchangeBodyComplete(wsi)

        case .httpWriteable:
            return exchangeWritable(wsi)

        case .wsiDestroy:
            forgetExchange(wsi)
            streamClosed(wsi)
            socketClosed(wsi)
            return nil

        case .serverNewClientInstantiated:
            socketOpened(wsi)
            return 0

        case .timer:
            return socketTimer(wsi)

        case .rawAdopt, .rawRX:
            // lws turns a `CONNECT` request into a raw socket and would keep it open forever;
            // ReactorHub serves no raw sockets (and is no proxy): close it.
            return -1

        default:
            return nil
        }
    }
}
