import Foundation

/// The token: fetched for each upgrade when it is stale, refreshed in an `auth` message
/// before it expires (PROTOCOL.md, "Identity and rights").
extension ClientEngine {
    /// The token for the next upgrade: a provider is asked again when there is none yet,
    /// the server refused or expired the last one, or it expires within the refresh lead.
    func currentToken() async -> String? {
        guard let tokenSource else { return nil }
        switch tokenSource {
        case .static(let fixed):
            if tokenIsStale {
                logger.warning("the server refused the token; a static token cannot be refreshed", metadata: ["url": url])
            }
            token = fixed
            return fixed
        case .provider(let fetch):
            if let token, !tokenIsStale, !expiresSoon(token) {
                return token
            }
            do {
                let fresh = try await fetch()
                token = fresh
                tokenIsStale = false
                return fresh
            } catch {
                logger.warning("the token provider failed; using the last token", metadata: ["error": "\(error)"])
                return token
            }
        }
    }

    /// Whether a token the server refused or expired can be replaced (a provider only).
    var canRefreshToken: Bool {
        if case .provider? = tokenSource { return true }
        return false
    }

    private func expiresSoon(_ token: String) -> Bool {
        guard let expiry = TokenExpiry.expiry(of: token) else { return false }
        return expiry - Date().timeIntervalSince1970 < options.tokenRefreshLead.seconds
    }

    /// Plans the next refresh from the current token's `exp` (a provider only: a static
    /// token cannot be replaced).
    func scheduleTokenRefresh() {
        refreshTimer?.cancel()
        guard case .provider? = tokenSource, let token, let expiry = TokenExpiry.expiry(of: token) else { return }
        let delay = TokenExpiry.refreshDelay(expiry: expiry, now: Date().timeIntervalSince1970, lead: options.tokenRefreshLead.seconds)
        scheduleRefresh(after: delay)
    }

    /// After a refused refresh: try again halfway to the expiry, while there is time.
    func scheduleTokenRetry() {
        guard let token, let expiry = TokenExpiry.expiry(of: token) else { return }
        let remaining = expiry - Date().timeIntervalSince1970
        guard remaining > 2 else { return }
        scheduleRefresh(after: remaining / 2)
    }

    private func scheduleRefresh(after seconds: Double) {
        refreshTimer?.cancel()
        let number = connectionNumber
        refreshTimer = Task {
            try? await Task.sleep(for: .milliseconds(Int64(max(0, seconds) * 1000)))
            guard !Task.isCancelled else { return }
            await self.refreshToken(on: number)
        }
    }

    /// Fetches a fresh token and hands it to the server on the open connection.
    private func refreshToken(on number: Int) async {
        guard case .provider(let fetch)? = tokenSource, isOpen, number == connectionNumber else { return }
        let fresh: String
        do {
            fresh = try await fetch()
        } catch {
            logger.warning("the token provider failed; trying again", metadata: ["error": "\(error)"])
            scheduleTokenRetry()
            return
        }
        guard isOpen, number == connectionNumber else { return }
        token = fresh
        tokenIsStale = false
        sendAuth(fresh)
    }

    func sendAuth(_ token: String) {
        let ref = makeRef()
        requests[ref] = .auth
        send(ClientFrames.auth(token: token, ref: ref))
    }
}
