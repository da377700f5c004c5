import ReactorHubProtocol
/// Reads the grammar of a `RightsPattern` from the pattern as written.
struct RightsPatternSyntax {
    private enum Token: Equatable {
        case byte(UInt8)
        case subject
    }

    let text: String

    func parse() throws(RightsPatternError) -> RightsPattern.Form {
        let bytes = Array(text.utf8)
        guard bytes.count <= RightsPattern.maximumLength else {
            throw failure("longer than \(RightsPattern.maximumLength) bytes")
        }
        if bytes.count == 1, bytes[0] == UInt8(ascii: "*") { return .everything }
        let tokens = try tokenize(bytes)
        let separator = Token.byte(UInt8(ascii: "/"))
        guard let slash = tokens.firstIndex(of: separator), tokens.lastIndex(of: separator) == slash else {
            throw failure("expected '*', KIND/*, KIND/ID or KIND/PREFIX*, with exactly one '/'")
        }
        let kind = try parseKind(tokens[..<slash])
        var id = tokens[(slash + 1)...]
        let isPrefix = id.last == .byte(UInt8(ascii: "*"))
        if isPrefix { id = id.dropLast() }
        return .address(kind: kind, id: try parseID(id, isPrefix: isPrefix), isPrefix: isPrefix)
    }

    /// `{sub}` as bytes.
    private static let placeholder = Array(RightsPattern.subjectPlaceholder.utf8)

    private func tokenize(_ bytes: [UInt8]) throws(RightsPatternError) -> [Token] {
        let placeholder = Self.placeholder
        var tokens: [Token] = []
        tokens.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index...].starts(with: placeholder) {
                tokens.append(.subject)
                index += placeholder.count
                continue
            }
            if bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "}") {
                throw failure("'{' and '}' appear only in the placeholder {sub}")
            }
            tokens.append(.byte(bytes[index]))
            index += 1
        }
        return tokens
    }

    private func parseKind(_ tokens: ArraySlice<Token>) throws(RightsPatternError) -> [RightsPattern.Piece] {
        guard let first = tokens.first else { throw failure("the kind before '/' is empty") }
        if tokens.contains(.byte(UInt8(ascii: "*"))) {
            throw failure("a kind is spelled out ('*' alone stands for every reactor), e.g. doc/*")
        }
        if case .byte(let byte) = first, !ReactorAddress.isKindStart(byte) {
            throw failure("a kind starts with a letter a-z")
        }
        let pieces = try pieces(of: tokens, allowed: ReactorAddress.isKindCharacter, "a kind holds only a-z, 0-9 and '-'")
        guard literalLength(pieces) <= ReactorAddress.maximumKindLength else {
            throw failure("a kind has at most \(ReactorAddress.maximumKindLength) characters")
        }
        return pieces
    }

    private func parseID(_ tokens: ArraySlice<Token>, isPrefix: Bool) throws(RightsPatternError) -> [RightsPattern.Piece] {
        if tokens.contains(.byte(UInt8(ascii: "*"))) {
            throw failure("'*' may only end the pattern, as in KIND/* or KIND/PREFIX*")
        }
        if tokens.isEmpty, !isPrefix {
            throw failure("the id after '/' is empty; KIND/* allows every id of a kind")
        }
        let pieces = try pieces(of: tokens, allowed: ReactorAddress.isIDCharacter, "an id holds only A-Z, a-z, 0-9, '.', '_' and '-'")
        guard literalLength(pieces) <= ReactorAddress.maximumIDLength else {
            throw failure("an id has at most \(ReactorAddress.maximumIDLength) characters")
        }
        return pieces
    }

    /// Groups runs of bytes into literals, checking each byte.
    private func pieces(
        of tokens: ArraySlice<Token>,
        allowed: (UInt8) -> Bool,
        _ rule: String
    ) throws(RightsPatternError) -> [RightsPattern.Piece] {
        var pieces: [RightsPattern.Piece] = []
        var literal: [UInt8] = []
        for token in tokens {
            switch token {
            case .byte(let byte):
                guard allowed(byte) else { throw failure(rule) }
                literal.append(byte)
            case .subject:
                if !literal.isEmpty { pieces.append(.literal(literal)) }
                literal = []
                pieces.append(.subject)
            }
        }
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        return pieces
    }

    private func literalLength(_ pieces: [RightsPattern.Piece]) -> Int {
        pieces.reduce(0) { total, piece in
            if case .literal(let bytes) = piece { return total + bytes.count }
            return total
        }
    }

    private func failure(_ message: String) -> RightsPatternError {
        RightsPatternError(pattern: text, message: message)
    }
}
