/// The seam between the hub and whatever carries its messages: the libwebsockets server
/// (`WebSocketServer`) in the daemon, an in-memory transport in tests.
///
/// The transport knows connections, bytes and whether a socket would block; it does not
/// queue. When the layer above has output for a connection it says so (`outputReady`);
/// the transport then pulls messages (`TransportHandler.nextOutput(for:)`) for as long as
/// the socket takes them, and reports a socket that filled up with output still waiting
/// (`connectionChoked`). So what is in flight, and what a slow reader loses, is decided in
/// one place above: the hub's delivery.
///
/// Every method may be called from any thread and returns without blocking.
public protocol MessageTransport: AnyObject, Sendable {
    /// Writable bytes the transport needs in front of each payload to frame it in place;
    /// the engine's codec reserves them.
    var frameHeadroom: Int { get }
    /// Starts serving; events go to `handler`, which the transport keeps until it has shut
    /// down. Returns the bound port (0 for transports without one).
    func start(handler: any TransportHandler) throws(TransportError) -> Int
    /// `id` has output waiting: it is pulled once the connection can take it.
    func outputReady(_ id: ConnectionID)
    /// Each of `ids` has output waiting.
    func outputReady(_ ids: [ConnectionID])
    /// Stops (or resumes) reading from `id`, so that TCP pushes back on a sender the
    /// layer above cannot keep up with.
    func setReading(_ id: ConnectionID, enabled: Bool)
    /// Ends `id` for the reason `end` gives; with `afterFlush`, the output waiting is
    /// written first.
    func close(_ id: ConnectionID, _ end: ConnectionEnd, afterFlush: Bool)
    /// Refuses new connections from now on (health checks report it).
    func stopAccepting()
    /// Ends every connection (`end`) after writing its waiting output, drops those still
    /// open after `grace`, and releases everything; returns once it is done.
    func shutdown(_ end: ConnectionEnd, grace: Duration) async
}

/// Receives a transport's events. The calls for one connection come from one thread (the
/// service thread it lives on), in order; calls for connections on different service
/// threads (`server.threads`) may come at the same time. Implementations must return
/// quickly and never block, since a service thread serves many connections.
public protocol TransportHandler: AnyObject, Sendable {
    /// Decides on a WebSocket upgrade that passed the transport's own checks (path,
    /// Origin, limits), before it is performed. Must be quick: no waiting.
    func shouldAccept(_ upgrade: UpgradeRequest) -> UpgradeDecision
    /// Whether the layer above answers HTTP requests for `path` (else static files).
    func handlesHTTP(path: String) -> Bool
    /// Answers an HTTP request it handles; `respond` may be called later, from any thread,
    /// exactly once.
    func http(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void)
    /// A connection opened.
    func connectionOpened(_ connection: ConnectionInfo)
    /// A whole text message arrived (fragments reassembled; valid UTF-8).
    func connection(_ id: ConnectionID, received message: [UInt8])
    /// The connection is gone; `code` is the close status sent or received, the one the
    /// server decided on when its close frame could not be written, 1006 when the peer
    /// vanished without a close frame. Nothing more is pulled for it.
    func connectionClosed(_ id: ConnectionID, code: CloseCode, reason: String)
    /// The connection can take more: the next message to write, or nil when nothing waits.
    func nextOutput(for id: ConnectionID) -> OutboundMessage?
    /// `nextOutput(for:)`, and whether nothing waits after it: the transport then stops
    /// pulling, and output queued later is announced with `outputReady` as usual. By
    /// default never the last (the transport pulls until it finds nothing).
    func takeOutput(for id: ConnectionID) -> (message: OutboundMessage, isLast: Bool)?
    /// The connection's socket is full and output still waits: its peer is not reading.
    /// Pulling resumes (with `nextOutput`) once the socket drains.
    func connectionChoked(_ id: ConnectionID)
}

extension TransportHandler {
    public func takeOutput(for id: ConnectionID) -> (message: OutboundMessage, isLast: Bool)? {
        nextOutput(for: id).map { ($0, false) }
    }
    public func shouldAccept(_ upgrade: UpgradeRequest) -> UpgradeDecision { .accept }
    public func handlesHTTP(path: String) -> Bool { false }
    public func http(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        respond(.text(404, "not found: \(request.path)"))
    }
}

extension MessageTransport {
    /// None: the transport copies or frames payloads itself.
    public var frameHeadroom: Int { 0 }
}
