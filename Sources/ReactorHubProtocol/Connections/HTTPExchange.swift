
/// An HTTP request the layer above answers (the hub's `/metrics`, `/readyz`, `/admin/…`,
/// `/api/v1/…`), with what the transport read of it.
public struct HTTPRequest: Sendable, Equatable {
    /// `GET`, `HEAD`, `POST`, `PUT`, `PATCH`, `DELETE` or `OPTIONS`.
    public var method: String
    /// The path, without the query string.
    public var path: String
    /// The query's arguments (`?a=1&b=2`), decoded; the last of a repeated name.
    public var query: [String: String]
    /// The `Authorization` header, when sent.
    public var authorization: String?
    /// The body (POST and PUT), at most `TransportConfiguration.maxRequestBodyBytes`.
    public var body: [UInt8]
    /// The body was longer than `TransportConfiguration.maxRequestBodyBytes`: `body` is
    /// empty, and the answer should be 413.
    public var bodyOverLimit: Bool
    /// The peer's address.
    public var peerAddress: String
    /// The other headers the layer above reads, by lower-case name, when sent: `origin`,
    /// `accept`, `content-type`, `if-none-match`, `last-event-id`,
    /// `access-control-request-method`.
    public var headers: [String: String]
    /// Whether the transport's Origin policy (`security.allowedOrigins`, same origin)
    /// allows the request's `Origin`; true when it sent none.
    public var originAllowed: Bool

    /// Creates a request (tests build them too).
    public init(
        method: String, path: String, query: [String: String] = [:], authorization: String? = nil, body: [UInt8] = [],
        peerAddress: String = "127.0.0.1", headers: [String: String] = [:], originAllowed: Bool = true, bodyOverLimit: Bool = false
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.body = body
        self.peerAddress = peerAddress
        self.headers = headers
        self.originAllowed = originAllowed
        self.bodyOverLimit = bodyOverLimit
    }
}

/// One header of an `HTTPResponse` beyond its status, type and length.
public struct HTTPField: Sendable, Equatable {
    /// The name, as written (`ETag`, `Retry-After`).
    public var name: String
    /// The value.
    public var value: String

    /// A header `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// What a transport needs to turn an answered request into an event stream (API.md "The
/// event stream"): the reactor its connection follows and where the client left off.
public struct EventStreamOpening: Sendable, Equatable {
    /// The reactor the stream follows.
    public var reactor: ReactorAddress
    /// The `Last-Event-ID` the client sent (`EPOCH:VERSION`), when it resumes.
    public var lastEventID: String?
    /// The body of the 503 the transport answers when it cannot open one more connection
    /// (`limits.maxConnections`, shutting down): a JSON error.
    public var refusalBody: [UInt8]

    /// An opening of a stream of `reactor`.
    public init(reactor: ReactorAddress, lastEventID: String?, refusalBody: [UInt8]) {
        self.reactor = reactor
        self.lastEventID = lastEventID
        self.refusalBody = refusalBody
    }
}

/// The answer to an `HTTPRequest`.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// The `Content-Type`.
    public var contentType: String
    /// The body.
    public var body: [UInt8]
    /// More headers (`ETag`, `Retry-After`, `Allow`, `WWW-Authenticate`).
    public var headers: [HTTPField]
    /// Set when the answer is an event stream: the transport writes a 200 with
    /// `text/event-stream` and keeps the response open as one more connection.
    public var stream: EventStreamOpening?

    /// Creates a response.
    public init(
        status: Int, contentType: String = "text/plain; charset=utf-8", body: [UInt8], headers: [HTTPField] = [],
        stream: EventStreamOpening? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
        self.stream = stream
    }

    /// A plain-text response of one line (a newline is added).
    public static func text(_ status: Int, _ line: String) -> HTTPResponse {
        HTTPResponse(status: status, body: Array((line + "\n").utf8))
    }

    /// The reason phrase of a status the server answers with.
    package static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 410: "Gone"
        case 421: "Misdirected Request"
        case 426: "Upgrade Required"
        case 431: "Request Header Fields Too Large"
        case 501: "Not Implemented"
        default: "Status \(status)"
        }
    }

    /// A JSON response.
    public static func json(_ status: Int, _ bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: bytes)
    }
}

/// What the transport knows of a WebSocket upgrade before it accepts it.
public struct UpgradeRequest: Sendable, Equatable {
    /// The request path, e.g. `/ws`.
    public var path: String
    /// The query's arguments, decoded (`?token=…` from browsers).
    public var query: [String: String]
    /// The `Authorization` header, when sent.
    public var authorization: String?
    /// The `Origin` header, when sent.
    public var origin: String?
    /// The peer's address.
    public var peerAddress: String

    /// Creates a description of an upgrade.
    public init(path: String, query: [String: String] = [:], authorization: String? = nil, origin: String? = nil, peerAddress: String = "127.0.0.1") {
        self.path = path
        self.query = query
        self.authorization = authorization
        self.origin = origin
        self.peerAddress = peerAddress
    }
}

/// Whether a WebSocket upgrade may go on.
public enum UpgradeDecision: Sendable, Equatable {
    /// Open the WebSocket.
    case accept
    /// Answer with this HTTP status and one-line body; no WebSocket opens.
    case refuse(status: Int, reason: String)
}
