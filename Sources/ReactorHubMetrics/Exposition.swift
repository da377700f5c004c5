/// Writes the Prometheus text exposition format, version 0.0.4: `# HELP`, `# TYPE`, then
/// the samples, label values escaped.
public struct Exposition: Sendable {
    /// The media type of the format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The text so far.
    public private(set) var text = ""

    /// An empty exposition.
    public init() {}

    /// Starts a metric family.
    public mutating func family(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    /// One sample.
    public mutating func sample(_ name: String, _ value: Double, labels: [(String, String)] = []) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",") + "}"
        }
        text += " " + Self.format(value) + "\n"
    }

    /// One sample of an integer value.
    public mutating func sample(_ name: String, _ value: Int, labels: [(String, String)] = []) {
        sample(name, Double(value), labels: labels)
    }

    /// A counter family with one sample.
    public mutating func counter(_ name: String, help: String, _ counter: Counter) {
        family(name, type: "counter", help: help)
        sample(name, counter.count)
    }

    /// A counter family with one sample per label value.
    public mutating func counter(_ name: String, help: String, _ counter: LabeledCounter, extra: [(String, String)] = []) {
        family(name, type: "counter", help: help)
        for (value, count) in counter.counts {
            sample(name, count, labels: extra + [(counter.label, value)])
        }
    }

    /// A gauge family with one sample.
    public mutating func gauge(_ name: String, help: String, _ value: Double) {
        family(name, type: "gauge", help: help)
        sample(name, value)
    }

    /// A histogram family.
    public mutating func histogram(_ name: String, help: String, _ histogram: Histogram) {
        family(name, type: "histogram", help: help)
        let (cumulative, count, sum) = histogram.snapshot
        for (bound, value) in zip(histogram.bounds, cumulative) {
            sample(name + "_bucket", value, labels: [("le", Self.format(bound))])
        }
        sample(name + "_bucket", count, labels: [("le", "+Inf")])
        sample(name + "_sum", sum)
        sample(name + "_count", count)
    }

    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    static func escapeLabel(_ value: String) -> String {
        guard needsEscaping(value, quote: true) else { return value }
        return value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func escapeHelp(_ value: String) -> String {
        guard needsEscaping(value, quote: false) else { return value }
        return value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Label values and help texts are nearly always plain: the scrape then skips the
    /// Foundation replacements (a few hundred per scrape: half its cost with few connections).
    private static func needsEscaping(_ value: String, quote: Bool) -> Bool {
        value.utf8.contains { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\n") || (quote && $0 == UInt8(ascii: "\"")) }
    }
}
