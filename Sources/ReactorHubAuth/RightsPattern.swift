import ReactorHubProtocol
/// One pattern of reactor addresses (PROTOCOL.md "Patterns"): `*`, `KIND/*`, `KIND/ID` or
/// `KIND/PREFIX*`, where `{sub}` anywhere stands for the token's subject.
///
/// The pattern's syntax is read once, from the pattern as written; the subject is then
/// compared byte for byte as literal text. So a subject can never widen a pattern: with the
/// subject `*`, `doc/notes-{sub}` allows only the id `notes-*`, which no reactor can have, and
/// a subject holding `/` cannot reach another kind. Addresses are compared as UTF-8 bytes,
/// never as `String`s, so no Unicode equivalence (the Kelvin sign and `K`) makes two names
/// equal.
public struct RightsPattern: Sendable, Hashable, CustomStringConvertible {
    /// The placeholder for the token's subject.
    public static let subjectPlaceholder = "{sub}"
    /// The longest pattern accepted, in UTF-8 bytes.
    public static let maximumLength = 256

    /// The pattern as written, placeholders included.
    public let text: String
    private let form: Form

    enum Piece: Sendable, Hashable {
        case literal([UInt8])
        case subject
    }

    enum Form: Sendable, Hashable {
        case everything
        case address(kind: [Piece], id: [Piece], isPrefix: Bool)
    }

    /// Parses a pattern; throws when it breaks the grammar, naming what is accepted.
    public init(_ text: String) throws(RightsPatternError) {
        self.text = text
        form = try RightsPatternSyntax(text: text).parse()
    }

    /// Whether the pattern holds `{sub}`, so that it needs a subject to match anything.
    public var usesSubject: Bool {
        guard case .address(let kind, let id, _) = form else { return false }
        return kind.contains(.subject) || id.contains(.subject)
    }

    /// Whether the reactor `kind`/`id` matches, with `subject` in place of `{sub}`.
    ///
    /// An address that breaks the naming rules matches nothing, and neither does a pattern
    /// with `{sub}` when `subject` is nil (an anonymous connection).
    public func matches(kind: String, id: String, subject: String?) -> Bool {
        guard ReactorAddress.isValidKind(kind.utf8), ReactorAddress.isValidID(id.utf8) else { return false }
        switch form {
        case .everything:
            return true
        case .address(let kindPieces, let idPieces, let isPrefix):
            guard let kindEnd = Self.match(kindPieces, subject: subject, in: kind.utf8), kindEnd == kind.utf8.endIndex,
                let idEnd = Self.match(idPieces, subject: subject, in: id.utf8)
            else { return false }
            return isPrefix || idEnd == id.utf8.endIndex
        }
    }

    /// The pattern as written.
    public var description: String { text }

    /// Where `pieces`, with `subject` in place of `{sub}`, end when they start `text` (byte
    /// for byte), or nil when they do not, or need a subject and there is none.
    private static func match(_ pieces: [Piece], subject: String?, in text: String.UTF8View) -> String.UTF8View.Index? {
        var position = text.startIndex
        for piece in pieces {
            let rest = text[position...]
            switch piece {
            case .literal(let literal):
                guard rest.starts(with: literal) else { return nil }
                position = text.index(position, offsetBy: literal.count)
            case .subject:
                guard let subject, rest.starts(with: subject.utf8) else { return nil }
                position = text.index(position, offsetBy: subject.utf8.count)
            }
        }
        return position
    }
}
