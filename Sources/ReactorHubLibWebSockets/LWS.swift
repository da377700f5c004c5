internal import CLibWebSockets

/// libwebsockets' calls as ReactorHub's server and client use them, on Swift types. `wsi`,
/// `context` and `vhost` are lws' handles, opaque here; every call must happen on the
/// context's service thread unless its documentation says otherwise.
public enum LWS {
    /// Bytes that must be writable in front of every payload handed to a write (`LWS_PRE`):
    /// lws writes the frame header there.
    public static let pre = Int(rh_lws_pre())

    // MARK: Contexts

    /// Serves the context once (`lws_service`): runs what is ready, waiting for it if nothing is.
    public static func service(_ context: OpaquePointer) {
        _ = lws_service(context, 0)
    }

    /// Wakes the service thread, which then gets `LWSReason.eventWaitCancelled`
    /// (`lws_cancel_service`). Any thread.
    public static func cancelService(_ context: OpaquePointer) {
        lws_cancel_service(context)
    }

    /// Destroys the context and every connection it holds (`lws_context_destroy`).
    public static func destroyContext(_ context: OpaquePointer) {
        lws_context_destroy(context)
    }

    /// The port the vhost named `name` listens on, nil when there is no such vhost.
    public static func listenPort(_ context: OpaquePointer, vhost name: String = "default") -> Int? {
        guard let vhost = lws_get_vhost_by_name(context, name) else { return nil }
        return Int(lws_get_vhost_listen_port(vhost))
    }

    /// Hands an accepted socket to `context`'s vhost `name`, which serves it as if its own
    /// listener had accepted it (`lws_adopt_socket_vhost`: HTTP, TLS when the vhost has it).
    /// The wsi, or nil when lws could not take it (it then closed the socket, except when
    /// the vhost is missing). On the context's service thread.
    public static func adoptSocket(_ context: OpaquePointer, vhost name: String = "default", _ fd: Int32) -> OpaquePointer? {
        guard let vhost = lws_get_vhost_by_name(context, name) else { return nil }
        return lws_adopt_socket_vhost(vhost, fd)
    }

    // MARK: Writes

    /// Sends a text frame of `length` bytes at `buffer`, which has `pre` writable bytes in
    /// front. Returns what lws wrote, negative on failure.
    public static func writeText(_ wsi: OpaquePointer, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int) -> Int32 {
        rh_lws_write_text(wsi, buffer, length)
    }

    /// Sends a binary frame (as `writeText`).
    public static func writeBinary(_ wsi: OpaquePointer, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int) -> Int32 {
        rh_lws_write_binary(wsi, buffer, length)
    }

    /// Sends a ping (as `writeText`).
    public static func writePing(_ wsi: OpaquePointer, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int) -> Int32 {
        rh_lws_write_ping(wsi, buffer, length)
    }

    /// Sends a pong (as `writeText`).
    public static func writePong(_ wsi: OpaquePointer, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int) -> Int32 {
        rh_lws_write_pong(wsi, buffer, length)
    }

    /// Sends bytes that are already complete WebSocket frames, as they are (`LWS_WRITE_RAW`:
    /// no framing, no extension; what the socket does not take stays on lws' buflist).
    public static func writeFrames(_ wsi: OpaquePointer, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int) -> Int32 {
        rh_lws_write_frames(wsi, buffer, length)
    }

    /// Sends HTTP/1 bytes (a head with its body, or more of a body).
    public static func writeHTTP(_ wsi: OpaquePointer, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int) -> Int32 {
        rh_lws_write_http(wsi, buffer, length)
    }

    /// Sets the close code and reason (`length` bytes, at most 123) sent when the callback
    /// next returns -1.
    public static func setCloseReason(_ wsi: OpaquePointer, code: UInt16, reason: UnsafePointer<UInt8>?, length: Int) {
        rh_lws_close_reason(wsi, Int32(code), reason, length)
    }

    // MARK: Flow control

    /// Asks for a writable callback (`lws_callback_on_writable`).
    public static func callbackOnWritable(_ wsi: OpaquePointer) {
        _ = lws_callback_on_writable(wsi)
    }

    /// Whether lws holds back part of the last write until the socket takes it
    /// (`lws_partial_buffered`): no system call, unlike `sendPipeChoked`.
    public static func partialBuffered(_ wsi: OpaquePointer) -> Bool {
        lws_partial_buffered(wsi) != 0
    }

    /// Whether the socket is full (`lws_send_pipe_choked`).
    public static func sendPipeChoked(_ wsi: OpaquePointer) -> Bool {
        lws_send_pipe_choked(wsi) != 0
    }

    /// Starts or stops reading the connection (`lws_rx_flow_control`).
    public static func setReceiving(_ wsi: OpaquePointer, _ enabled: Bool) {
        _ = lws_rx_flow_control(wsi, enabled ? 1 : 0)
    }

    // MARK: Received frames

    /// Whether the frame being received is binary.
    public static func frameIsBinary(_ wsi: OpaquePointer) -> Bool {
        lws_frame_is_binary(wsi) != 0
    }

    /// Whether the frame being received is the message's last.
    public static func isFinalFragment(_ wsi: OpaquePointer) -> Bool {
        lws_is_final_fragment(wsi) != 0
    }

    /// The bytes of the frame being received that are still to come.
    public static func remainingPacketPayload(_ wsi: OpaquePointer) -> Int {
        Int(clamping: lws_remaining_packet_payload(wsi))
    }

    // MARK: Timers

    /// Gives the wsi an `LWSReason.timer` callback after `microseconds` (-1 cancels it).
    public static func setTimer(_ wsi: OpaquePointer, microseconds: Int64) {
        lws_set_timer_usecs(wsi, lws_usec_t(microseconds))
    }

    /// Closes the connection if its close frame found no room within `seconds`
    /// (`PENDING_TIMEOUT_CLOSE_SEND`).
    public static func setCloseSendTimeout(_ wsi: OpaquePointer, seconds: Int32) {
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_SEND, seconds)
    }

    /// Drops the connection (one still connecting included) on the next service pass,
    /// without a close frame (`LWS_TO_KILL_ASYNC`).
    public static func killAsync(_ wsi: OpaquePointer) {
        rh_lws_kill_async(wsi)
    }

    /// Starts the close of the connection from inside one of its callbacks, which then
    /// returns 0 (instead of returning -1). With a close reason set (`setCloseReason`) lws
    /// sends the close frame at the next writable event and waits for the peer's.
    ///
    /// Needed on libuv: lws 4.1.6 as Debian builds it (with `_DEBUG`) closes a connection a
    /// second time when its callback returned -1 there ("close_and_handled uv repeat test"
    /// in `lws_service_fd_tsi`), and that second close drops it before its close frame is
    /// sent. Not on poll: a close started here may free the connection before the
    /// callback returns (on libuv lws frees it later, from libuv's close callback).
    public static func closeInCallback(_ wsi: OpaquePointer) {
        rh_lws_close_now(wsi)
    }

    // MARK: Connections

    /// The connection's socket descriptor.
    public static func socketFD(_ wsi: OpaquePointer) -> Int32 {
        Int32(lws_get_socket_fd(wsi))
    }

    /// The peer's numeric address (`lws_get_peer_simple`), nil when unknown.
    public static func peerAddress(_ wsi: OpaquePointer) -> String? {
        var buffer = [CChar](repeating: 0, count: 128)
        guard let name = lws_get_peer_simple(wsi, &buffer, buffer.count) else { return nil }
        return String(cString: name)
    }

    /// The opaque user data a client connection was made with.
    public static func opaqueUserData(_ wsi: OpaquePointer) -> UnsafeMutableRawPointer? {
        lws_get_opaque_user_data(wsi)
    }

    /// The HTTP status the server answered a client connection's request with.
    public static func clientHTTPStatus(_ wsi: OpaquePointer) -> Int {
        Int(lws_http_client_http_response(wsi))
    }

    /// The accepted peer's address (a `sockaddr_storage`), from `user` of
    /// `LWSReason.filterNetworkConnection`.
    public static func filterClientAddress(_ user: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        user + MemoryLayout<lws_filter_network_conn_args>.offset(of: \.cli_addr)!
    }

    // MARK: Request headers

    /// The length of header `token`, 0 when absent.
    public static func headerLength(_ wsi: OpaquePointer, _ token: LWSToken) -> Int32 {
        lws_hdr_total_length(wsi, token.index)
    }

    /// Copies header `token` into `buffer` (`length` bytes, room for a terminating 0
    /// included); returns its length or a negative value.
    public static func copyHeader(_ wsi: OpaquePointer, _ buffer: UnsafeMutablePointer<CChar>, _ length: Int32, _ token: LWSToken) -> Int32 {
        lws_hdr_copy(wsi, buffer, length, token.index)
    }

    /// Copies fragment `index` of header `token` (the URI's arguments are one fragment each).
    public static func copyHeaderFragment(
        _ wsi: OpaquePointer, _ buffer: UnsafeMutablePointer<CChar>, _ length: Int32, _ token: LWSToken, index: Int32
    ) -> Int32 {
        lws_hdr_copy_fragment(wsi, buffer, length, token.index, index)
    }

    /// The length of the header lws has no token for, `name` (lower case, with its colon,
    /// `nameLength` bytes); negative when absent.
    public static func customHeaderLength(_ wsi: OpaquePointer, _ name: UnsafePointer<CChar>, _ nameLength: Int32) -> Int32 {
        lws_hdr_custom_length(wsi, name, nameLength)
    }

    /// Copies the header `name` (as `customHeaderLength`) into `buffer`.
    public static func copyCustomHeader(
        _ wsi: OpaquePointer, _ buffer: UnsafeMutablePointer<CChar>, _ length: Int32, _ name: UnsafePointer<CChar>, _ nameLength: Int32
    ) -> Int32 {
        lws_hdr_custom_copy(wsi, buffer, length, name, nameLength)
    }

    // MARK: HTTP responses

    /// Writes the status line at `cursor` (advanced; at most up to `end`); false when it
    /// does not fit.
    public static func addStatus(
        _ wsi: OpaquePointer, _ status: UInt32, _ cursor: inout UnsafeMutablePointer<UInt8>?, _ end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        lws_add_http_header_status(wsi, status, &cursor, end) == 0
    }

    /// Writes `name` (lower case, with its colon) and `value` (`valueLength` bytes) as a
    /// header at `cursor`; false when it does not fit.
    public static func addHeader(
        _ wsi: OpaquePointer, name: UnsafePointer<UInt8>, value: UnsafePointer<UInt8>?, valueLength: Int32,
        _ cursor: inout UnsafeMutablePointer<UInt8>?, _ end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        lws_add_http_header_by_name(wsi, name, value, valueLength, &cursor, end) == 0
    }

    /// Writes `content-length`; false when it does not fit.
    public static func addContentLength(
        _ wsi: OpaquePointer, _ length: UInt64, _ cursor: inout UnsafeMutablePointer<UInt8>?, _ end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        lws_add_http_header_content_length(wsi, lws_filepos_t(length), &cursor, end) == 0
    }

    /// Ends the header block; false when it does not fit.
    public static func finalizeHeaders(
        _ wsi: OpaquePointer, _ cursor: inout UnsafeMutablePointer<UInt8>?, _ end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        lws_finalize_http_header(wsi, &cursor, end) == 0
    }

    /// Appends `name: value` to the headers of `LWSReason.addHeaders` (`input`: its
    /// arguments); false when no room is left. The permessage-deflate answer of an upgrade
    /// goes this way.
    public static func addHeader(_ wsi: OpaquePointer, toResponse input: UnsafeMutableRawPointer, name: String, value: String) -> Bool {
        let arguments = input.assumingMemoryBound(to: lws_process_html_args.self)
        guard let start = arguments.pointee.p else { return false }
        var position: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(start).assumingMemoryBound(to: UInt8.self)
        let end = position! + Int(arguments.pointee.max_len)
        let failed = rh_lws_append_header(wsi, name, value, Int32(value.utf8.count), &position, end)
        guard failed == 0, let position else { return false }
        arguments.pointee.max_len -= Int32(UnsafeMutableRawPointer(position) - UnsafeMutableRawPointer(start))
        arguments.pointee.p = UnsafeMutableRawPointer(position).assumingMemoryBound(to: CChar.self)
        return true
    }

    /// Appends `name` (with its colon, 0-terminated) and `value` (`valueLength` bytes) to a
    /// client's upgrade request at `position` (advanced, up to `end`); false when no room.
    public static func appendHandshakeHeader(
        _ wsi: OpaquePointer, name: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?, valueLength: Int32,
        _ position: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, _ end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        rh_lws_append_header(wsi, name, value, valueLength, position, end) == 0
    }

    /// Ends an HTTP transaction (`lws_http_transaction_completed`); false when the
    /// connection must close.
    public static func transactionCompleted(_ wsi: OpaquePointer) -> Bool {
        lws_http_transaction_completed(wsi) == 0
    }

    /// Serves the file at `path` (`lws_serve_http_file`): negative on failure, positive
    /// when done at once (end the transaction), 0 when lws goes on with it.
    public static func serveFile(_ wsi: OpaquePointer, path: String, contentType: String, extraHeaders: String) -> Int32 {
        lws_serve_http_file(wsi, path, contentType, extraHeaders, Int32(extraHeaders.utf8.count))
    }

    /// Makes the response an event stream (`lws_http_mark_sse`): no lws timeout applies.
    public static func markEventStream(_ wsi: OpaquePointer) {
        _ = lws_http_mark_sse(wsi)
    }

    /// Gives the request's header table back to lws' pool (`lws_http_headers_detach`).
    public static func detachHeaders(_ wsi: OpaquePointer) {
        _ = lws_http_headers_detach(wsi)
    }
}

/// libwebsockets' log levels (`LLL_…`).
public struct LWSLogLevel: OptionSet, Sendable {
    /// lws' bits.
    public let rawValue: Int32
    /// Levels from lws' bits.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `LLL_ERR`.
    public static let error = LWSLogLevel(rawValue: rh_lws_log_err())
    /// `LLL_WARN`.
    public static let warning = LWSLogLevel(rawValue: rh_lws_log_warn())
    /// `LLL_NOTICE`.
    public static let notice = LWSLogLevel(rawValue: rh_lws_log_notice())
}

extension LWS {
    /// The process-wide log bridge: lws' lines of `level` go to `emit` (its level and the
    /// line, with its newline), for the whole process (`lws_set_log_level`).
    public static func setLogLevel(_ level: LWSLogLevel, emit: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void) {
        lws_set_log_level(level.rawValue, emit)
    }
}
