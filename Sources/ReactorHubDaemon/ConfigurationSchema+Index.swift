import ReactorHubJSON

extension ConfigurationSchema {
    /// The keys by dotted name.
    static let keysByName: [String: Key] = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })

    /// The dotted names of every JSON object of the file: "" (the top), `limits`,
    /// `reactors`, `reactors.counter`, `auth`, …
    static let objectNames: Set<String> = {
        var names: Set<String> = [""]
        for key in keys {
            var components = key.name.split(separator: ".").dropLast()
            while !components.isEmpty {
                names.insert(components.joined(separator: "."))
                components = components.dropLast()
            }
        }
        return names
    }()

    /// The optional sections by name.
    static let sectionsByName: [String: ConfigurationSection] = Dictionary(
        uniqueKeysWithValues: sections.map { ($0.name, $0) }
    )

    /// The member names of the object `object` (dotted, "" at the top), in schema order.
    static func members(of object: String) -> [String] {
        let prefix = object.isEmpty ? "" : object + "."
        var members: [String] = []
        for key in keys where key.name.hasPrefix(prefix) {
            let rest = key.name.dropFirst(prefix.count)
            let member = String(rest.prefix { $0 != "." })
            if !members.contains(member) { members.append(member) }
        }
        return members
    }

    /// The key's built-in default, as the file would spell it (for an optional section's
    /// key, its default once the section is present).
    static func defaultValue(of key: Key) -> JSONValue {
        var configuration = Configuration()
        key.createSection(&configuration)
        return key.get(configuration) ?? .null
    }

    /// The name of a key or object close to `name` (a misspelling, or the right name in
    /// another object), for "did you mean".
    static func suggestion(for name: String) -> String? {
        let object = name.split(separator: ".").dropLast().joined(separator: ".")
        let prefix = object.isEmpty ? "" : object + "."
        let leaf = String(name.dropFirst(prefix.count))
        if let sibling = Spelling.closest(to: leaf, among: members(of: object)) {
            return prefix + sibling
        }
        let everything = keys.map(\.name) + objectNames.filter { !$0.isEmpty }.sorted()
        let sameLeaf = everything.filter { candidate in
            candidate.split(separator: ".").last.map { $0.lowercased() == leaf.lowercased() } ?? false
        }
        if sameLeaf.count == 1 { return sameLeaf[0] }
        return Spelling.closest(to: name, among: everything)
    }
}
