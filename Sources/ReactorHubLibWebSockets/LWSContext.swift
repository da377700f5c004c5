internal import CLibWebSockets
internal import CLibUV
#if canImport(Glibc)
import Glibc
#endif

/// What receives the callbacks of a context's one protocol. The wrapper's single C
/// callback finds it through the context's user pointer and forwards every reason to it;
/// no allocation happens on the way.
public protocol LWSProtocolHandler: AnyObject {
    /// Handles one callback of `wsi`. `user` is the connection's per-session data (or, for
    /// some reasons, the reason's own arguments), `input` and `length` the reason's data.
    /// Returns what the callback returns to lws, or nil to hand the reason to lws' default
    /// HTTP handler (`lws_callback_http_dummy`).
    func lwsCallback(
        _ wsi: OpaquePointer, reason: LWSReason, user: UnsafeMutableRawPointer?, input: UnsafeMutableRawPointer?, length: Int
    ) -> Int32?

    /// Called on the service thread after each pass of the service loop, once lws has
    /// served what was ready (with libuv: from a check handle, after the pass's I/O
    /// callbacks). Does nothing unless implemented.
    func lwsServicePassEnded()
}

extension LWSProtocolHandler {
    public func lwsServicePassEnded() {}
}

/// The loop a context's service thread waits in.
public enum LWSEventLoop: String, Sendable {
    /// lws' own: poll(2) over every descriptor at each wake-up.
    case poll
    /// libuv (epoll on Linux) through lws' evlib_uv plugin, on a loop `LWSContext` owns
    /// (`foreign_loops`): a wake-up costs what is ready, not what is open.
    case libuv
}

/// Options of a context's `lws_context_creation_info` (`LWS_SERVER_OPTION_…`).
public struct LWSContextFlags: OptionSet, Sendable {
    /// The flags as bits of this type (not lws' values).
    public let rawValue: UInt8
    /// Flags from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `LWS_SERVER_OPTION_VALIDATE_UTF8`: text messages must be UTF-8.
    public static let validateUTF8 = LWSContextFlags(rawValue: 1 << 0)
    /// `LWS_SERVER_OPTION_DISABLE_IPV6`.
    public static let disableIPv6 = LWSContextFlags(rawValue: 1 << 1)
    /// `LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT`: initialise OpenSSL.
    public static let sslGlobalInit = LWSContextFlags(rawValue: 1 << 2)
    /// `LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE`.
    public static let securityHeaders = LWSContextFlags(rawValue: 1 << 3)
    /// `LWS_SERVER_OPTION_LIBUV`: run on libuv (`LWSEventLoop.libuv`), on a loop the
    /// `LWSContext` makes; on lws' poll(2) loop instead when its libuv plugin does not load
    /// (`LWSContext.eventLoop`, `eventLoopFallback`).
    public static let libuv = LWSContextFlags(rawValue: 1 << 5)

    var options: UInt64 {
        var options: UInt64 = 0
        if contains(.validateUTF8) { options |= rh_lws_option_validate_utf8() }
        if contains(.disableIPv6) { options |= rh_lws_option_disable_ipv6() }
        if contains(.sslGlobalInit) { options |= rh_lws_option_ssl_global_init() }
        if contains(.securityHeaders) { options |= rh_lws_option_security_headers() }
        if contains(.libuv) { options |= rh_lws_option_libuv() }
        return options
    }
}

/// An `lws_retry_bo_t`'s validity timers: seconds of silence before a ping, and before the
/// connection is dropped (0: none).
public struct LWSRetryPolicy: Sendable {
    /// `secs_since_valid_ping`.
    public var secondsBeforePing: UInt16
    /// `secs_since_valid_hangup`.
    public var secondsBeforeHangup: UInt16

    /// A policy with both timers.
    public init(secondsBeforePing: UInt16, secondsBeforeHangup: UInt16) {
        self.secondsBeforePing = secondsBeforePing
        self.secondsBeforeHangup = secondsBeforeHangup
    }
}

/// A context's creation options (`lws_context_creation_info` and its one protocol).
public struct LWSContextOptions: Sendable {
    /// The port to listen on (0: any free one); nil listens nowhere (a client, or with
    /// `servesAdoptedSockets` a server given its sockets by `LWS.adoptSocket`).
    public var port: Int?
    /// With no `port`: the context is a server that listens nowhere and serves the
    /// accepted sockets handed to it (`CONTEXT_PORT_NO_LISTEN_SERVER`).
    public var servesAdoptedSockets = false
    /// The interface address to listen on; nil: all.
    public var interface: String?
    /// The protocol's name.
    public var protocolName: String
    /// Bytes lws allocates per connection for the handler (`per_session_data_size`).
    public var perSessionDataSize = 0
    /// `rx_buffer_size` of the protocol (0: lws' default).
    public var receiveBufferSize = 0
    /// `tx_packet_size` of the protocol (0: lws' default).
    public var transmitPacketSize = 0
    /// The context's retry and idle policy (`retry_and_idle_policy`); nil: lws' default.
    public var contextRetryPolicy: LWSRetryPolicy?
    /// The policy client connections are made with (`LWSContext.connect`); nil: none.
    public var clientRetryPolicy: LWSRetryPolicy?
    /// `LWS_SERVER_OPTION_…` flags.
    public var flags: LWSContextFlags = []
    /// The `server:` header lws writes.
    public var serverString: String?
    /// TLS: the certificate chain file (PEM).
    public var tlsCertificateFile: String?
    /// TLS: the private key file (PEM).
    public var tlsPrivateKeyFile: String?
    /// The ALPN protocols offered (comma separated).
    public var alpn: String?
    /// The CA bundle client connections verify against.
    public var clientCAFile: String?
    /// Header bytes per request (`max_http_header_data2`; 0: lws' default).
    public var maxHTTPHeaderData: UInt32 = 0
    /// Header tables held at once (`max_http_header_pool2`; 0: lws' default).
    public var maxHTTPHeaderPool: UInt32 = 0
    /// `timeout_secs` (0: lws' default).
    public var timeoutSeconds: UInt32 = 0
    /// `keepalive_timeout` (0: lws' default).
    public var keepaliveTimeoutSeconds: Int32 = 0
    /// `connect_timeout_secs` (0: lws' default).
    public var connectTimeoutSeconds: UInt32 = 0

    /// Options for a context whose protocol is named `protocolName`.
    public init(protocolName: String) {
        self.protocolName = protocolName
    }
}

/// A client connection's `lws_client_connect_info`.
public struct LWSClientConnectOptions {
    /// The address connected to (a numeric IP address or a name lws resolves).
    public var address: String
    /// The port connected to.
    public var port: Int
    /// The request target.
    public var path: String
    /// The `Host` header.
    public var host: String
    /// TLS (wss://).
    public var secure = false
    /// With `secure`, any certificate is accepted (self-signed, expired, another host).
    public var allowsInsecureTLS = false
    /// The subprotocols offered (comma separated), if any.
    public var protocols: String?
    /// What `LWS.opaqueUserData(_:)` returns for the connection.
    public var opaqueUserData: UnsafeMutableRawPointer?

    /// A connection to `address`:`port`, asking for `path` of `host`.
    public init(address: String, port: Int, path: String, host: String) {
        self.address = address
        self.port = port
        self.path = path
        self.host = host
    }
}

/// The C memory a libwebsockets context keeps pointers to (its protocol table, its retry
/// policies, its strings), allocated once for the context's life, and the handler its
/// callbacks go to. The context itself is the `OpaquePointer` `create` returns; its owner
/// destroys it (`LWS.destroyContext`) before this is released.
///
/// With `LWSContextFlags.libuv` it also owns the context's libuv loop: `service` runs it,
/// `stopService` ends that run and `destroy` closes the context and then the loop.
///
/// Safety of `@unchecked Sendable`: set up once by `create`, on the thread that creates
/// the context; read afterwards only by lws' service thread.
public final class LWSContext: @unchecked Sendable {
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let contextRetry: UnsafeMutablePointer<lws_retry_bo_t>
    private let clientRetry: UnsafeMutablePointer<lws_retry_bo_t>
    private var hasClientRetry = false
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    fileprivate unowned(unsafe) var handler: (any LWSProtocolHandler)?
    /// lws' `pcontext`: holds the context until lws has freed it, then NULL.
    private let finalized: UnsafeMutablePointer<OpaquePointer?>
    /// The libuv loop (a `uv_loop_t`) and the check handle that ends each service pass.
    private var loop: UnsafeMutableRawPointer?
    private var passHook: UnsafeMutableRawPointer?

    /// The loop the context runs on, once created.
    public private(set) var eventLoop = LWSEventLoop.poll
    /// Why a context asked to run on libuv runs on poll instead; nil when it got what it asked.
    public private(set) var eventLoopFallback: String?

    /// Memory for one context.
    public init() {
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        contextRetry = .allocate(capacity: 1)
        contextRetry.initialize(to: lws_retry_bo_t())
        clientRetry = .allocate(capacity: 1)
        clientRetry.initialize(to: lws_retry_bo_t())
        finalized = .allocate(capacity: 1)
        finalized.initialize(to: nil)
    }

    deinit {
        finalized.deallocate()
        protocols.deinitialize(count: 2)
        protocols.deallocate()
        contextRetry.deinitialize(count: 1)
        contextRetry.deallocate()
        clientRetry.deinitialize(count: 1)
        clientRetry.deallocate()
        for string in cStrings {
            free(string)
        }
    }

    private func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let pointer = strdup(text)!
        cStrings.append(pointer)
        return pointer
    }

    /// Creates the context (`lws_create_context`), whose callbacks go to `handler` (held
    /// unowned: it must outlive the context). Nil when lws could not create it (for a
    /// server, most often: the address is in use). Call once; release it with `destroy`.
    ///
    /// With `LWSContextFlags.libuv` the context runs on a libuv loop made here and given to
    /// lws as its foreign loop (a loop of lws' own would take SIGINT and SIGTERM from the
    /// process with libuv signal watchers). When lws cannot load its libuv plugin (it then
    /// returns NULL before making anything) the context is made on poll instead, and
    /// `eventLoopFallback` says why.
    public func create(_ options: LWSContextOptions, handler: any LWSProtocolHandler) -> OpaquePointer? {
        assert(LWSReason.matchesHeader, "LWSReason's constants differ from libwebsockets.h")
        self.handler = handler
        protocols[0].name = UnsafePointer(cString(options.protocolName))
        protocols[0].callback = lwsProtocolCallback
        protocols[0].per_session_data_size = options.perSessionDataSize
        protocols[0].rx_buffer_size = options.receiveBufferSize
        protocols[0].tx_packet_size = options.transmitPacketSize

        var info = lws_context_creation_info()
        info.port = options.port.map { Int32($0) }
            ?? (options.servesAdoptedSockets ? rh_lws_context_port_no_listen_server() : rh_lws_context_port_no_listen())
        info.protocols = UnsafePointer(protocols)
        if let policy = options.contextRetryPolicy {
            contextRetry.pointee.secs_since_valid_ping = policy.secondsBeforePing
            contextRetry.pointee.secs_since_valid_hangup = policy.secondsBeforeHangup
            info.retry_and_idle_policy = UnsafePointer(contextRetry)
        }
        if let policy = options.clientRetryPolicy {
            clientRetry.pointee.secs_since_valid_ping = policy.secondsBeforePing
            clientRetry.pointee.secs_since_valid_hangup = policy.secondsBeforeHangup
            hasClientRetry = true
        }
        info.options = options.flags.subtracting(.libuv).options
        info.pcontext = finalized
        info.server_string = options.serverString.map { UnsafePointer(cString($0)) }
        info.ssl_cert_filepath = options.tlsCertificateFile.map { UnsafePointer(cString($0)) }
        info.ssl_private_key_filepath = options.tlsPrivateKeyFile.map { UnsafePointer(cString($0)) }
        info.alpn = options.alpn.map { UnsafePointer(cString($0)) }
        info.client_ssl_ca_filepath = options.clientCAFile.map { UnsafePointer(cString($0)) }
        info.iface = options.interface.map { UnsafePointer(cString($0)) }
        info.user = Unmanaged.passUnretained(self).toOpaque()
        info.max_http_header_data2 = options.maxHTTPHeaderData
        info.max_http_header_pool2 = options.maxHTTPHeaderPool
        info.timeout_secs = options.timeoutSeconds
        info.keepalive_timeout = options.keepaliveTimeoutSeconds
        info.connect_timeout_secs = options.connectTimeoutSeconds
        if options.flags.contains(.libuv) {
            switch createOnLibUV(&info) {
            case .created(let context):
                return context
            case .failed:
                return nil
            case .unavailable(let reason):
                eventLoopFallback = reason
            }
        }
        eventLoop = .poll
        let context = lws_create_context(&info)
        finalized.pointee = context
        return context
    }

    private enum LibUVCreation {
        case created(OpaquePointer)
        /// lws loaded its plugin and failed later (no listening socket, for one).
        case failed
        /// libuv or lws' plugin for it is not there.
        case unavailable(String)
    }

    private func createOnLibUV(_ info: inout lws_context_creation_info) -> LibUVCreation {
        guard let loop = rh_uv_loop_new() else { return .unavailable("libuv could not make a loop") }
        var loops: [UnsafeMutableRawPointer?] = [loop]
        let created = loops.withUnsafeMutableBufferPointer { loops in
            info.options |= rh_lws_option_libuv()
            info.foreign_loops = loops.baseAddress
            defer {
                info.options &= ~rh_lws_option_libuv()
                info.foreign_loops = nil
            }
            return lws_create_context(&info)
        }
        guard let created else {
            _ = rh_uv_loop_close(loop)
            return .unavailable(
                "libwebsockets could not load its libuv event library (\(Self.libUVPlugin), Debian's libwebsockets-evlib-uv)"
            )
        }
        self.loop = loop
        eventLoop = .libuv
        finalized.pointee = created
        // With a foreign loop, lws returns the context even when it failed after loading the
        // plugin (the default vhost could not listen, for one): already being destroyed, its
        // closes pending on the loop. They are run before it is finished off.
        guard lws_get_vhost_by_name(created, "default") != nil else {
            finishDestroy(created, loop: loop)
            return .failed
        }
        passHook = rh_uv_check_start(loop, lwsServicePassHook, Unmanaged.passUnretained(self).toOpaque())
        return .created(created)
    }

    /// Where lws looks for its libuv plugin.
    static let libUVPlugin = String(cString: rh_lws_install_libdir()) + "/libwebsockets-evlib_uv.so"

    /// Serves the context (`lws_service`) on the service thread. On poll: one pass, waiting
    /// for something to be ready if nothing is, then `lwsServicePassEnded`. On libuv: runs
    /// the loop until `stopService` (each pass ends with `lwsServicePassEnded`).
    public func service(_ context: OpaquePointer) {
        _ = lws_service(context, 0)
        if loop == nil {
            handler?.lwsServicePassEnded()
        }
    }

    /// Makes a `service` running on libuv return once the current pass is over (`uv_stop`);
    /// on poll, nothing (`service` returns after each pass). Service thread only.
    public func stopService() {
        if let loop {
            rh_uv_stop(loop)
        }
    }

    /// Destroys the context and every connection it holds (`lws_context_destroy`), outside
    /// `service`. On libuv, lws closes each connection's libuv handle asynchronously: the
    /// loop is run until they are closed, lws is called again to free the context, and the
    /// loop is closed. False when something was left open: lws did not finish (the context
    /// and the loop are then left allocated rather than freed under lws).
    @discardableResult
    public func destroy(_ context: OpaquePointer) -> Bool {
        guard let loop else {
            lws_context_destroy(context)
            return true
        }
        if let passHook {
            rh_uv_check_close(passHook)
            self.passHook = nil
        }
        lws_context_destroy(context)
        return finishDestroy(context, loop: loop)
    }

    /// Runs the loop until lws' closes are done, has lws free the context (its second
    /// `lws_context_destroy`: with a foreign loop lws stops short of that by itself) and
    /// closes the loop.
    @discardableResult
    private func finishDestroy(_ context: OpaquePointer, loop: UnsafeMutableRawPointer) -> Bool {
        drain(loop)
        // Only once every handle is closed, lws' own included: the second call frees the
        // context that their close callbacks would read.
        guard rh_uv_handle_count(loop) == 0 else { return false }
        if finalized.pointee != nil {
            lws_context_destroy(context)
            drain(loop)
        }
        guard finalized.pointee == nil, rh_uv_loop_close(loop) == 0 else { return false }
        self.loop = nil
        return true
    }

    /// Runs passes that do not wait until the loop holds no handle (at most 10,000, as lws
    /// does for a loop of its own).
    private func drain(_ loop: UnsafeMutableRawPointer) {
        for _ in 0..<10_000 where rh_uv_handle_count(loop) > 0 {
            _ = rh_uv_run_nowait(loop)
        }
    }

    /// Starts a client connection on `context` (made by this object) with the context's
    /// protocol and `clientRetryPolicy` (`lws_client_connect_via_info`; lws copies the
    /// strings during the call). Nil when it failed at once.
    public func connect(_ context: OpaquePointer, _ options: LWSClientConnectOptions) -> OpaquePointer? {
        var strings: [UnsafeMutablePointer<CChar>] = []
        defer { strings.forEach { free($0) } }
        func temporary(_ text: String) -> UnsafePointer<CChar> {
            let pointer = strdup(text)!
            strings.append(pointer)
            return UnsafePointer(pointer)
        }
        var info = lws_client_connect_info()
        info.context = context
        info.address = temporary(options.address)
        info.port = Int32(clamping: options.port)
        info.path = temporary(options.path)
        info.host = temporary(options.host)
        info.ssl_connection = rh_lws_client_ssl_flags(options.secure ? 1 : 0, options.allowsInsecureTLS ? 1 : 0)
        if let protocols = options.protocols {
            info.protocol = temporary(protocols)
        }
        info.local_protocol_name = protocols[0].name
        info.opaque_user_data = options.opaqueUserData
        if hasClientRetry {
            info.retry_and_idle_policy = UnsafePointer(clientRetry)
        }
        return lws_client_connect_via_info(&info)
    }
}

/// The check handle of a context on libuv: the end of a service pass.
private func lwsServicePassHook(_ owner: UnsafeMutableRawPointer?) {
    guard let owner else { return }
    Unmanaged<LWSContext>.fromOpaque(owner).takeUnretainedValue().handler?.lwsServicePassEnded()
}

/// The one C callback of every context made by `LWSContext`: finds the handler through the
/// context's user pointer and forwards the reason; without one, or when the handler
/// declines, lws' default HTTP handler answers. A TLS server's OpenSSL context is set to
/// issue no TLS 1.3 session tickets before anything else sees it
/// (`rh_lws_tls_server_issue_no_tickets` says why).
private func lwsProtocolCallback(
    _ wsi: OpaquePointer?,
    _ reason: lws_callback_reasons,
    _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?,
    _ length: Int
) -> Int32 {
    if reason == LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS, let user,
       rh_lws_tls_server_issue_no_tickets(user) != 1 {
        return 1
    }
    guard let wsi,
          let context = lws_get_context(wsi),
          let owner = lws_context_user(context),
          let handler = Unmanaged<LWSContext>.fromOpaque(owner).takeUnretainedValue().handler,
          let result = handler.lwsCallback(wsi, reason: LWSReason(reason), user: user, input: input, length: length)
    else {
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    return result
}
