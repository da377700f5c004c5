import Auth
import Dispatch
import Foundation
import Metrics
import JSON
public import Transport

/// The admin endpoints under `/admin/` (bearer `admin.token`; 404 when it is not set,
/// 401 without the right bearer).
extension Hub {
    public func handlesHTTP(path: String) -> Bool {
        path.hasPrefix("/admin/") || path == "/admin" || path == "/readyz" || (path == "/metrics" && configuration.metricsEnabled)
    }

    public func http(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) {
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
              ConstantTime.equal(Array(bearer.utf8), Array(adminToken.utf8))
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
        // As the verified tokens hold it (NFC), so that the connections compare byte for byte.
        let subject = TokenSubject.normalized(sub)
        policy.revocations.revoke(subject: subject, at: Date())
        let closed = closeConnections(of: subject)
        logger.info("revoked", metadata: ["user": subject, "closed": String(closed)])
        var writer = JSONWriter()
        writer.writeValue(.object(["closed": .int(closed)]))
        return .json(200, writer.bytes)
    }
}
