public import Foundation
import ReactorHubLocking

/// The subjects revoked by `POST /admin/revoke`, and when; shared by every verification.
///
/// A token of a revoked subject is refused (`revoked`) when it was issued before the
/// revocation or does not say when it was issued (no `iat`): only tokens minted after the
/// revocation get the user back in. Subjects are kept in NFC (`TokenSubject`), so
/// canonically equivalent spellings of one are one subject.
/// Thread-safe; one entry per revoked subject, kept for the life of the process.
public final class RevocationList: Sendable {
    private let revokedAt = Locked<[String: Date]>([:])

    /// Creates an empty list.
    public init() {}

    /// Records that every token of `subject` issued before `time` is revoked; revoking
    /// again moves the time forward, never back.
    public func revoke(subject: String, at time: Date) {
        let subject = TokenSubject.normalized(subject)
        revokedAt.withLock { revokedAt in
            if let earlier = revokedAt[subject], earlier >= time { return }
            revokedAt[subject] = time
        }
    }

    /// When `subject` was last revoked, or nil.
    public func revocationTime(of subject: String) -> Date? {
        let subject = TokenSubject.normalized(subject)
        return revokedAt.withLock { $0[subject] }
    }

    /// Whether a token of `subject` issued at `issuedAt` (nil: its `iat` is absent) is revoked.
    public func isRevoked(subject: String, issuedAt: Date?) -> Bool {
        guard let revoked = revocationTime(of: subject) else { return false }
        guard let issuedAt else { return true }
        return issuedAt < revoked
    }

    /// How many subjects have been revoked.
    public var count: Int {
        revokedAt.withLock { $0.count }
    }
}
