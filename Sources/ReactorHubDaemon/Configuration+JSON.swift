public import ReactorHubJSON

extension Configuration {
    /// The configuration as the file would spell it (what `--print-config` prints): every
    /// key in schema order, the optional sections only when present, and secrets as
    /// `"***"` unless `revealingSecrets`.
    public func json(revealingSecrets: Bool = false) -> JSONValue {
        var root = JSONObject()
        for key in ConfigurationSchema.keys {
            guard var value = key.get(self) else { continue }
            if key.isSecret, !revealingSecrets, !value.isNull {
                value = "***"
            }
            if !revealingSecrets, let redact = key.redact {
                value = redact(value)
            }
            Self.insert(value, at: key.name.split(separator: ".").map(String.init)[...], into: &root)
        }
        for (kind, settings) in reactors.custom.sorted(by: { $0.key < $1.key }) {
            Self.insert(settings, at: ["reactors", kind], into: &root)
        }
        return .object(root)
    }

    private static func insert(_ value: JSONValue, at path: ArraySlice<String>, into object: inout JSONObject) {
        guard let first = path.first else { return }
        if path.count == 1 {
            object[first] = value
            return
        }
        var nested = object[first]?.objectValue ?? JSONObject()
        insert(value, at: path.dropFirst(), into: &nested)
        object[first] = .object(nested)
    }
}
