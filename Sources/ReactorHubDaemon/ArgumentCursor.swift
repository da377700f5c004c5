/// Walks the arguments: `--name value` and `--name=value`.
struct ArgumentCursor {
    private var remaining: ArraySlice<String>
    private var inlineValue: String?

    init(_ arguments: ArraySlice<String>) {
        remaining = arguments
    }

    func peek() -> String? {
        remaining.first
    }

    /// The next option's name and the argument as written.
    mutating func next() -> (name: String, argument: String)? {
        guard let argument = remaining.popFirst() else { return nil }
        inlineValue = nil
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            inlineValue = String(argument[argument.index(after: equals)...])
            return (String(argument[..<equals]), argument)
        }
        return (argument, argument)
    }

    /// The value of the option just read.
    mutating func value(of name: String) throws(ConfigurationError) -> String {
        if let inlineValue {
            self.inlineValue = nil
            return inlineValue
        }
        guard let next = remaining.popFirst() else {
            throw ConfigurationError("\(name) needs a value; see --help")
        }
        return next
    }
}
