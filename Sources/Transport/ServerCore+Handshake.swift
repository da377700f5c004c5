internal import CLibWebSockets
import Logging

/// The RFC 6455 checks of an opening handshake (section 4.2.1), made before the other
/// upgrade decisions of `confirmUpgrade`.
extension ServerCore {
    /// The HTTP answer to an opening handshake that must not be upgraded (400, or 426 for
    /// another protocol version), or nil when it is well formed.
    func handshakeRefusal(_ wsi: OpaquePointer) -> UpgradeRequest.Refusal? {
        let request = UpgradeRequest(
            isGet: rh_lws_hdr_total_length(wsi, rh_lws_token_get_uri()) > 0,
            host: header(wsi, rh_lws_token_host()),
            connection: header(wsi, rh_lws_token_connection()),
            key: header(wsi, rh_lws_token_key()),
            version: header(wsi, rh_lws_token_version())
        )
        guard let refusal = request.refusal else { return nil }
        logger.debug("refusing upgrade: malformed handshake", metadata: ["status": String(refusal.status), "reason": refusal.body])
        return refusal
    }
}
