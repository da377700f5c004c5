public import ReactorHubProtocol
import Foundation
import ReactorHubJSON
import ReactorHubLogging

/// Identity and rights (PROTOCOL.md): tokens at the upgrade and in `auth` messages, the
/// auth timeout, expiry, refresh and revocation.
extension Hub {
    /// A token given at the upgrade that does not verify is refused with 401 and the reason.
    public func shouldAccept(_ upgrade: UpgradeRequest) -> UpgradeDecision {
        guard let policy = configuration.auth,
              let token = AuthPolicy.token(query: upgrade.query, authorization: upgrade.authorization)
        else { return .accept }
        switch verifyAtUpgrade(token, policy: policy) {
        case .success:
            return .accept
        case .failure(let refusal):
            metrics.authFailures.increment(refusal.reason)
            logger.info("refusing upgrade: token refused", metadata: ["reason": refusal.reason, "peer": upgrade.peerAddress])
            return .refuse(status: 401, reason: refusal.reason)
        }
    }

    /// The identity a new connection starts with, from its upgrade's token if any.
    func identity(of connection: ConnectionInfo) -> SessionIdentity {
        guard let policy = configuration.auth else { return .open }
        if let token = AuthPolicy.token(query: connection.query, authorization: connection.authorization),
           case .success(let verified) = verifyAtUpgrade(token, policy: policy) {
            return .user(verified)
        }
        return policy.required ? .awaiting : .anonymous(policy.anonymousRights)
    }

    /// Verifies an upgrade's (or an HTTP request's) token once: the check at the upgrade and the connection's open
    /// share it, and so do connections that present the same token (tabs, reconnects). A
    /// token's signature, claims, audience and issuer never change, so a kept result is used
    /// again after checking only what time and revocation change: the deadline (`exp` plus
    /// the leeway) and the revocation list; `nbf` and `iat` were already in the past. At most
    /// 2 × 1024 results are kept (`VerifiedTokenCache`).
    func verifyAtUpgrade(_ token: String, policy: AuthPolicy) -> Result<Identity, IdentityRefusal> {
        let now = Date()
        if let kept = verifiedAtUpgrade.withLock({ $0.lookUp(token) }), kept.validUntil > now, !policy.verifier.isRevoked(kept) {
            return .success(kept)
        }
        let result = policy.verifier.verify(token, now: now)
        switch result {
        case .success(let verified):
            verifiedAtUpgrade.withLock { $0.insert(verified, for: token) }
        case .failure:
            verifiedAtUpgrade.withLock { $0.remove(token) }
        }
        return result
    }

    /// Sets the deadline of a new session: the auth timeout, or its token's expiry.
    func armTimers(for id: ConnectionID, identity: SessionIdentity) {
        guard let policy = configuration.auth else { return }
        switch identity {
        case .awaiting:
            identityDeadlines.set(id, .authTimeout, inSeconds: policy.timeout / .seconds(1))
        case .user(let token):
            armExpiry(for: id, token: token, policy: policy)
        case .open, .anonymous:
            break
        }
    }

    private func armExpiry(for id: ConnectionID, token: Identity, policy: AuthPolicy) {
        // A millisecond past the deadline, so that the wall clock has reached it too.
        identityDeadlines.set(id, .expiry, inSeconds: token.validUntil.timeIntervalSinceNow + 0.001)
    }

    /// The deadlines that came (on the deadlines' queue): a connection still without a token
    /// is closed for the auth timeout, one whose token is past `exp` and the leeway for
    /// expiry; one whose token was refreshed in the meantime gets its new deadline.
    func identityDeadlinesPassed(_ due: [(key: ConnectionID, value: IdentityDeadline)]) {
        guard let policy = configuration.auth else { return }
        for (id, deadline) in due {
            guard let identity = state.withLock({ $0.sessions[id]?.identity }) else { continue }
            switch (deadline, identity) {
            case (.authTimeout, .awaiting):
                logger.info("closing: no valid token in time", metadata: ["session": id.description])
                transport.close(id, .policy("authentication timeout"), afterFlush: true)
            case (.expiry, .user(let current)) where current.validUntil <= Date():
                logger.info("closing: token expired", metadata: ["session": id.description, "user": current.subject])
                transport.close(id, .policy("token expired"), afterFlush: true)
            case (.expiry, .user(let current)):
                // The wall clock is behind the timer's (or the token was refreshed): not yet.
                armExpiry(for: id, token: current, policy: policy)
            default:
                break
            }
        }
    }

    /// `{"type":"auth","token":…}`: authenticate, or refresh with a token for the same user.
    func authenticate(_ token: String, ref: Ref?, from id: ConnectionID) {
        guard let policy = configuration.auth else {
            return refuse(id, ProtocolError(.badRequest, "this server has no authentication (no auth section); connect without a token"), ref: ref)
        }
        let verified: Identity
        switch policy.verifier.verify(token, now: Date()) {
        case .success(let token):
            verified = token
        case .failure(let refusal):
            metrics.authFailures.increment(refusal.reason)
            return refuse(id, ProtocolError(.unauthenticated, "the token was refused (\(refusal.reason)): \(refusal.message); what was in force stays"), ref: ref)
        }
        let outcome = state.withLock { state -> Result<(ConnectionOutput, [(ReactorAddress, InstanceSlot)]), ProtocolError> in
            guard var session = state.sessions[id] else { return .failure(ProtocolError(.internal, "this connection is closing")) }
            if case .user(let current) = session.identity, !current.hasSameSubject(as: verified) {
                return .failure(ProtocolError(.forbidden, "this connection is authenticated as '\(current.subject)'; a token for '\(verified.subject)' cannot replace it (a connection keeps one identity)"))
            }
            session.identity = .user(verified)
            // Reactors the new rights no longer allow to read are left.
            var lost: [(ReactorAddress, InstanceSlot)] = []
            for (address, slot) in session.joined where verified.rights.refusal(.read, on: address) != nil {
                session.joined[address] = nil
                state.forget(address)
                lost.append((address, slot))
            }
            state.sessions[id] = session
            return .success((session.output, lost))
        }
        switch outcome {
        case .failure(let error):
            refuse(id, error, ref: ref)
        case .success(let (output, lost)):
            logger.debug("authenticated", metadata: ["session": id.description, "user": verified.subject])
            // `exp` may lie past what an Int holds (1e300 is a number of seconds too).
            let expires = Int(min(verified.expires.timeIntervalSince1970.rounded(.down), 0x1p62))
            delivery.send(.reply(codec.authed(ref: ref, user: verified.subject, expires: expires)), to: output)
            for (address, slot) in lost.sorted(by: { $0.0.description < $1.0.description }) {
                leave(slot, output: output, ref: nil, reply: false)
                delivery.send(.reply(codec.left(address.description, ref: nil, reason: "forbidden")), to: output)
            }
            armExpiry(for: id, token: verified, policy: policy)
        }
    }

    /// Closes every connection of `subject` with 1008 `revoked`; returns how many.
    func closeConnections(of subject: String) -> Int {
        let ids = state.withLock { state in
            state.sessions.values.filter { $0.identity.user.map { $0.utf8.elementsEqual(subject.utf8) } ?? false }.map(\.id)
        }
        for id in ids {
            transport.close(id, .policy("revoked"), afterFlush: true)
        }
        return ids.count
    }
}
