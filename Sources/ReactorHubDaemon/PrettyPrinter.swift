import ReactorHubJSON

/// Indented JSON for people (`--print-config`); the wire always uses compact JSON.
enum PrettyPrinter {
    static func render(_ value: JSONValue) -> String {
        var out = ""
        write(value, indent: 0, into: &out)
        return out
    }

    private static func write(_ value: JSONValue, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent + 1)
        let closingPad = String(repeating: "  ", count: indent)
        switch value {
        case .object(let object) where !object.isEmpty:
            out += "{\n"
            for (index, member) in object.enumerated() {
                out += pad + compact(.string(member.key)) + ": "
                write(member.value, indent: indent + 1, into: &out)
                out += index == object.count - 1 ? "\n" : ",\n"
            }
            out += closingPad + "}"
        case .array(let elements) where !elements.isEmpty:
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += pad
                write(element, indent: indent + 1, into: &out)
                out += index == elements.count - 1 ? "\n" : ",\n"
            }
            out += closingPad + "]"
        default:
            out += compact(value)
        }
    }

    private static func compact(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.writeValue(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
