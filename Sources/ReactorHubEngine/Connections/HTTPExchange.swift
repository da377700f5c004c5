/// An HTTP request the layer above answers (the hub's `/metrics`, `/readyz`, `/admin/…`),
/// with what the transport read of it.
public struct HTTPRequest: Sendable, Equatable {
    /// `GET`, `HEAD`, `POST`, `PUT`, `DELETE` or `OPTIONS`.
    public var method: String
    /// The path, without the query string.
    public var path: String
    /// The query's arguments (`?a=1&b=2`), decoded; the last of a repeated name.
    public var query: [String: String]
    /// The `Authorization` header, when sent.
    public var authorization: String?
    /// The body (POST and PUT), at most `TransportConfiguration.maxRequestBodyBytes`.
    public var body: [UInt8]
    /// The peer's address.
    public var peerAddress: String

    /// Creates a request (tests build them too).
    public init(method: String, path: String, query: [String: String] = [:], authorization: String? = nil, body: [UInt8] = [], peerAddress: String = "127.0.0.1") {
        self.method = method
        self.path = path
        self.query = query
        self.authorization = authorization
        self.body = body
        self.peerAddress = peerAddress
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

    /// Creates a response.
    public init(status: Int, contentType: String = "text/plain; charset=utf-8", body: [UInt8]) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }

    /// A plain-text response of one line (a newline is added).
    public static func text(_ status: Int, _ line: String) -> HTTPResponse {
        HTTPResponse(status: status, body: Array((line + "\n").utf8))
    }

    /// The reason phrase of a status the server answers with.
    package static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
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
