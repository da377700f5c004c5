/// Keeps the HS256 secret out of anything printed: `print`, string interpolation, `dump`
/// and the debugger show the algorithm's name only (`--print-config` shows `"***"` too).
extension TokenAlgorithm: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The algorithm's name, and for HS256 that the secret is hidden.
    public var description: String {
        switch self {
        case .hs256: "HS256 (secret hidden)"
        case .rs256, .es256: name
        }
    }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// A mirror without the key.
    public var customMirror: Mirror { Mirror(self, children: ["name": name]) }
}

extension TokenVerifier: CustomReflectable {
    /// A mirror without the key.
    public var customMirror: Mirror {
        Mirror(self, children: ["algorithm": algorithmName, "audience": audience as Any, "issuer": issuer as Any, "leewaySeconds": leewaySeconds])
    }
}

extension TokenMinter: CustomReflectable {
    /// A mirror without the secret.
    public var customMirror: Mirror { Mirror(self, children: ["algorithm": "HS256 (secret hidden)"]) }
}
