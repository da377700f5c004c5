internal import CLibWebSockets

/// A libwebsockets callback reason (`enum lws_callback_reasons`), as the protocol callback
/// hands it to an `LWSProtocolHandler`. The constants are the reasons ReactorHub's server
/// and client handle; any other value passes through as its raw number. lws numbers its
/// reasons explicitly (they are its ABI, which plugins rely on), so the constants are
/// literals that a handler's `switch` compiles to integer compares; `matchesHeader` checks
/// them against the compiled header (asserted when a context is created).
public struct LWSReason: RawRepresentable, Hashable, Sendable {
    /// The C enum's value.
    public let rawValue: UInt32

    /// A reason by its C value.
    @inlinable
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    init(_ reason: lws_callback_reasons) {
        rawValue = reason.rawValue
    }

    /// `LWS_CALLBACK_EVENT_WAIT_CANCELLED`: `lws_cancel_service` woke the service thread.
    @inlinable public static var eventWaitCancelled: LWSReason { LWSReason(rawValue: 71) }
    /// `LWS_CALLBACK_FILTER_NETWORK_CONNECTION`: a socket was accepted (`user`: the filter
    /// arguments, `LWS.filterClientAddress`; `input`: the descriptor).
    @inlinable public static var filterNetworkConnection: LWSReason { LWSReason(rawValue: 17) }
    /// `LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED`: the accepted socket became a wsi.
    @inlinable public static var serverNewClientInstantiated: LWSReason { LWSReason(rawValue: 19) }
    /// `LWS_CALLBACK_HTTP`: an HTTP request (`input`: its path).
    @inlinable public static var http: LWSReason { LWSReason(rawValue: 12) }
    /// `LWS_CALLBACK_HTTP_BODY`: a chunk of a request body.
    @inlinable public static var httpBody: LWSReason { LWSReason(rawValue: 13) }
    /// `LWS_CALLBACK_HTTP_BODY_COMPLETION`: the request body is complete.
    @inlinable public static var httpBodyCompletion: LWSReason { LWSReason(rawValue: 14) }
    /// `LWS_CALLBACK_HTTP_FILE_COMPLETION`: a file served with `LWS.serveFile` is out.
    @inlinable public static var httpFileCompletion: LWSReason { LWSReason(rawValue: 15) }
    /// `LWS_CALLBACK_HTTP_WRITEABLE`: an HTTP connection can take more.
    @inlinable public static var httpWriteable: LWSReason { LWSReason(rawValue: 16) }
    /// `LWS_CALLBACK_CLOSED_HTTP`: an HTTP connection closed.
    @inlinable public static var closedHTTP: LWSReason { LWSReason(rawValue: 5) }
    /// `LWS_CALLBACK_HTTP_CONFIRM_UPGRADE`: an upgrade is asked for (`input`: its name).
    @inlinable public static var httpConfirmUpgrade: LWSReason { LWSReason(rawValue: 86) }
    /// `LWS_CALLBACK_ADD_HEADERS`: headers may be added to a response (`input`: the
    /// arguments `LWS.addHeader(_:toResponse:name:value:)` takes).
    @inlinable public static var addHeaders: LWSReason { LWSReason(rawValue: 53) }
    /// `LWS_CALLBACK_ESTABLISHED`: a server WebSocket connection opened.
    @inlinable public static var established: LWSReason { LWSReason(rawValue: 0) }
    /// `LWS_CALLBACK_RECEIVE`: a chunk of a message, server side.
    @inlinable public static var receive: LWSReason { LWSReason(rawValue: 6) }
    /// `LWS_CALLBACK_RECEIVE_PONG`: a pong, server side.
    @inlinable public static var receivePong: LWSReason { LWSReason(rawValue: 7) }
    /// `LWS_CALLBACK_SERVER_WRITEABLE`: a server WebSocket connection can take more.
    @inlinable public static var serverWriteable: LWSReason { LWSReason(rawValue: 11) }
    /// `LWS_CALLBACK_WS_PEER_INITIATED_CLOSE`: the peer's close frame (`input`: its payload).
    @inlinable public static var wsPeerInitiatedClose: LWSReason { LWSReason(rawValue: 38) }
    /// `LWS_CALLBACK_CLOSED`: a server WebSocket connection closed.
    @inlinable public static var closed: LWSReason { LWSReason(rawValue: 4) }
    /// `LWS_CALLBACK_WSI_DESTROY`: a wsi is about to be freed.
    @inlinable public static var wsiDestroy: LWSReason { LWSReason(rawValue: 30) }
    /// `LWS_CALLBACK_TIMER`: the timer set with `LWS.setTimer` fired.
    @inlinable public static var timer: LWSReason { LWSReason(rawValue: 73) }
    /// `LWS_CALLBACK_RAW_ADOPT`: a socket was adopted as a raw connection.
    @inlinable public static var rawAdopt: LWSReason { LWSReason(rawValue: 62) }
    /// `LWS_CALLBACK_RAW_RX`: bytes on a raw connection.
    @inlinable public static var rawRX: LWSReason { LWSReason(rawValue: 59) }
    /// `LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER`: headers may be added to a client's
    /// upgrade request (`input`: a pointer to the write position, `length`: the room).
    @inlinable public static var clientAppendHandshakeHeader: LWSReason { LWSReason(rawValue: 24) }
    /// `LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP`: the server answered a client's request.
    @inlinable public static var establishedClientHTTP: LWSReason { LWSReason(rawValue: 44) }
    /// `LWS_CALLBACK_CLIENT_ESTABLISHED`: a client WebSocket connection opened.
    @inlinable public static var clientEstablished: LWSReason { LWSReason(rawValue: 3) }
    /// `LWS_CALLBACK_CLIENT_RECEIVE`: a chunk of a message, client side.
    @inlinable public static var clientReceive: LWSReason { LWSReason(rawValue: 8) }
    /// `LWS_CALLBACK_CLIENT_WRITEABLE`: a client connection can take more.
    @inlinable public static var clientWriteable: LWSReason { LWSReason(rawValue: 10) }
    /// `LWS_CALLBACK_CLIENT_CONNECTION_ERROR`: a client connection failed (`input`: why).
    @inlinable public static var clientConnectionError: LWSReason { LWSReason(rawValue: 1) }
    /// `LWS_CALLBACK_CLIENT_CLOSED`: a client WebSocket connection closed.
    @inlinable public static var clientClosed: LWSReason { LWSReason(rawValue: 75) }

    /// Whether every constant equals the compiled header's value.
    static var matchesHeader: Bool {
        let pairs: [(LWSReason, lws_callback_reasons)] = [
            (.eventWaitCancelled, LWS_CALLBACK_EVENT_WAIT_CANCELLED),
            (.filterNetworkConnection, LWS_CALLBACK_FILTER_NETWORK_CONNECTION),
            (.serverNewClientInstantiated, LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED),
            (.http, LWS_CALLBACK_HTTP),
            (.httpBody, LWS_CALLBACK_HTTP_BODY),
            (.httpBodyCompletion, LWS_CALLBACK_HTTP_BODY_COMPLETION),
            (.httpFileCompletion, LWS_CALLBACK_HTTP_FILE_COMPLETION),
            (.httpWriteable, LWS_CALLBACK_HTTP_WRITEABLE),
            (.closedHTTP, LWS_CALLBACK_CLOSED_HTTP),
            (.httpConfirmUpgrade, LWS_CALLBACK_HTTP_CONFIRM_UPGRADE),
            (.addHeaders, LWS_CALLBACK_ADD_HEADERS),
            (.established, LWS_CALLBACK_ESTABLISHED),
            (.receive, LWS_CALLBACK_RECEIVE),
            (.receivePong, LWS_CALLBACK_RECEIVE_PONG),
            (.serverWriteable, LWS_CALLBACK_SERVER_WRITEABLE),
            (.wsPeerInitiatedClose, LWS_CALLBACK_WS_PEER_INITIATED_CLOSE),
            (.closed, LWS_CALLBACK_CLOSED),
            (.wsiDestroy, LWS_CALLBACK_WSI_DESTROY),
            (.timer, LWS_CALLBACK_TIMER),
            (.rawAdopt, LWS_CALLBACK_RAW_ADOPT),
            (.rawRX, LWS_CALLBACK_RAW_RX),
            (.clientAppendHandshakeHeader, LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER),
            (.establishedClientHTTP, LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP),
            (.clientEstablished, LWS_CALLBACK_CLIENT_ESTABLISHED),
            (.clientReceive, LWS_CALLBACK_CLIENT_RECEIVE),
            (.clientWriteable, LWS_CALLBACK_CLIENT_WRITEABLE),
            (.clientConnectionError, LWS_CALLBACK_CLIENT_CONNECTION_ERROR),
            (.clientClosed, LWS_CALLBACK_CLIENT_CLOSED),
        ]
        return pairs.allSatisfy { $0.0.rawValue == $0.1.rawValue }
    }
}
