import Foundation

/// A token's `sub` as the server keeps and compares it: in Unicode normalization form C.
///
/// A user typed once as `josé` (U+00E9) and once as `jose` + U+0301 is one user: the two
/// spellings are canonically equivalent, and byte comparisons (rights' `{sub}`, the
/// connections closed by a revocation, the admin listings' counts by user) would tell
/// them apart. Every subject is normalized where it enters: the verified token, the body
/// of `POST /admin/revoke`, the revocation list.
public enum TokenSubject {
    /// `subject` in NFC.
    public static func normalized(_ subject: String) -> String {
        subject.precomposedStringWithCanonicalMapping
    }
}
