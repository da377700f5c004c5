import ReactorHubProtocol
import ReactorHubJSON

/// A refusal of the HTTP API (API.md "Common rules"): the WebSocket error code with the
/// status it maps to, its headers, and the body `{"error":{"code","message"}}`. The one
/// home of the mapping from codes to statuses.
struct APIError: Error {
    var status: Int
    var error: ProtocolError
    var headers: [HTTPField] = []
    /// Members after `error` (a 410's `epoch` and `version`).
    var extra: [(String, JSONValue)] = []

    /// `error` with the status of its code; `inPath`: the reactor address was in the path
    /// (404 for an unknown or malformed one), not in a batch item (400).
    init(_ error: ProtocolError, inPath: Bool = true, retryAfter: Int = 1) {
        self.error = error
        self.status = Self.status(of: error.code, inPath: inPath)
        switch error.code {
        case .unauthenticated: headers = [HTTPField("WWW-Authenticate", "Bearer")]
        case .rateLimited, .overloaded: headers = [HTTPField("Retry-After", String(max(retryAfter, 1)))]
        default: break
        }
    }

    /// `error` answered with `status` (405, 413, 404 without an endpoint, 410).
    init(status: Int, _ error: ProtocolError, headers: [HTTPField] = []) {
        self.status = status
        self.error = error
        self.headers = headers
    }

    /// The status of a code.
    static func status(of code: ProtocolError.Code, inPath: Bool) -> Int {
        switch code {
        case .unknownReactor, .invalidReactor: inPath ? 404 : 400
        case .unauthenticated: 401
        case .forbidden: 403
        case .rateLimited: 429
        case .overloaded: 503
        case .internal: 500
        default: 400
        }
    }

    /// A path under `/api/v1/` that names no endpoint.
    static func noEndpoint(_ path: String) -> APIError {
        APIError(status: 404, ProtocolError(
            .badRequest,
            "no endpoint at \(path); the endpoints are /api/v1/kinds, /api/v1/reactors/KIND/ID[/actions|/patches|/events], /api/v1/actions and /api/v1/openapi.json (docs/api-http.md)"
        ))
    }

    /// `{"error":{"code":…,"message":…}}`, as a batch item or a whole body.
    var body: JSONValue {
        var object: JSONObject = ["error": Self.errorObject(error)]
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }

    static func errorObject(_ error: ProtocolError) -> JSONValue {
        .object(["code": .string(error.code.rawValue), "message": .string(error.message)])
    }

    /// The whole answer.
    var response: HTTPResponse {
        var writer = JSONWriter()
        writer.writeValue(body)
        var response = HTTPResponse.json(status, writer.bytes)
        response.headers = headers
        return response
    }
}

extension ProtocolError.Code {
    /// The history no longer reaches back to the version asked (API.md, 410).
    static let historyGone = ProtocolError.Code(rawValue: "history_gone")
}
