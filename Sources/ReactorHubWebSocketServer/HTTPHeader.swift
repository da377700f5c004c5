/// One header of an HTTP response the server writes; the name is lowercase with its
/// colon, as libwebsockets' `lws_add_http_header_by_name` takes it.
struct HTTPHeader: Equatable {
    var name: String
    var value: String
}

extension Substring.UTF8View {
    /// A header value without the optional whitespace (space, tab) around it (RFC 7230
    /// §3.2), read as bytes: Foundation's `trimmingCharacters` costs a microsecond or more
    /// per call, and every upgrade trims several values.
    var trimmingOptionalWhitespace: Substring.UTF8View {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
