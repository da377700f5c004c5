import Dispatch
import Foundation
import ReactorHubMetrics
import ReactorHubJSON
public import ReactorHubProtocol

/// The hub's HTTP routes: the API under `/api/v1/` (`Hub+API`), `/readyz`, `/metrics`, and
/// the admin endpoints under `/admin/` (bearer `admin.token`; 404 when it is not set, 401
/// without the right bearer). A request whose `Origin` the transport does not allow is
/// refused with 403 before anything else.
extension Hub {
    public func handlesHTTP(path: String) -> Bool {
        path.hasPrefix("/admin/") || path == "/admin" || path == "/readyz" || (path == "/metrics" && configuration.metricsEnabled)
            || APIEndpoint.claims(path)
    }

    public func http(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        if APIEndpoint.claims(request.path) {
            return api(request, respond: respond)
        }
        if !request.originAllowed {
            return respond(.text(403, "origin \(request.headers["origin"] ?? "?") is not allowed (security.allowedOrigins)"))
        }
        if request.bodyOverLimit {
            return respond(.text(413, "request body over \(configuration.maxMessageBytes) bytes"))
        }
        if request.path == "/readyz" {
            return respond(readyz())
        }
        if request.path == "/metrics" {
            // Rendering reads every outbox: off the service thread.
            DispatchQueue.global().async { [self] in
                respond(HTTPResponse(status: 200, contentType: Exposition.contentType, body: Array(renderMetrics().utf8)))
            }
            return
        }
        guard let adminToken = configuration.adminToken else {
            return respond(.text(404, "not found: \(request.path) (the admin endpoints need admin.token)"))
        }
        guard let bearer = AuthPolicy.token(query: [:], authorization: request.authorization),
              Self.sameSecret(bearer, adminToken)
        else {
            return respond(.text(401, "the admin endpoints need Authorization: Bearer ADMIN_TOKEN"))
        }
        // Listings read every instance: off the service thread.
        DispatchQueue.global().async { [self] in
            respond(admin(request))
        }
    }

    /// `POST /admin/revoke {"sub":"alice"}` → `{"closed":N}`.
    func revoke(_ body: [UInt8]) -> HTTPResponse {
        guard let policy = configuration.auth else {
            return .text(409, "this server has no auth section: there are no tokens to revoke")
        }
        guard case .object(let object)? = try? JSONParser().parse(body), case .string(let sub)? = object["sub"], !sub.isEmpty else {
            return .text(400, #"expected a JSON body {"sub":"USER"}"#)
        }
        // As the verified identities hold it (the verifier's canonical form), so that the
        // connections compare byte for byte.
        let subject = policy.verifier.revoke(subject: sub, at: Date())
        let closed = closeConnections(of: subject)
        logger.info("revoked", metadata: ["user": subject, "closed": String(closed)])
        var writer = JSONWriter()
        writer.writeValue(.object(["closed": .int(closed)]))
        return .json(200, writer.bytes)
    }

    /// Whether two secrets are equal, in a time that depends only on their lengths (a
    /// bearer compared byte by byte would tell an attacker how much of it was right).
    static func sameSecret(_ given: String, _ secret: String) -> Bool {
        let a = Array(given.utf8), b = Array(secret.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
