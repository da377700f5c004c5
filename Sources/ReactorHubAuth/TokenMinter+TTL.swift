extension TokenMinter {
    /// The longest lifetime `parseTTL` accepts: a year.
    public static let maximumTTL = Duration.seconds(366 * 86_400)

    /// Reads a lifetime such as `90s`, `30m`, `1h` or `2d`: a positive whole number and one
    /// unit (seconds, minutes, hours, days), at most a year.
    public static func parseTTL(_ text: String) throws(TokenMinterError) -> Duration {
        let usage = "use a positive whole number followed by s, m, h or d, e.g. 90s, 30m, 1h, 2d"
        let bytes = Array(text.utf8)
        guard let unit = bytes.last, bytes.count >= 2, bytes.count <= 12 else {
            throw TokenMinterError(code: .invalidTTL, message: "'\(text)' is not a lifetime; \(usage)")
        }
        let digits = bytes.dropLast()
        guard digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let number = Int64(String(decoding: digits, as: UTF8.self))
        else {
            throw TokenMinterError(code: .invalidTTL, message: "'\(text)' is not a lifetime; \(usage)")
        }
        let secondsPerUnit: Int64
        switch unit {
        case UInt8(ascii: "s"): secondsPerUnit = 1
        case UInt8(ascii: "m"): secondsPerUnit = 60
        case UInt8(ascii: "h"): secondsPerUnit = 3_600
        case UInt8(ascii: "d"): secondsPerUnit = 86_400
        default:
            throw TokenMinterError(code: .invalidTTL, message: "'\(text)' has no known unit; \(usage)")
        }
        let (seconds, overflow) = number.multipliedReportingOverflow(by: secondsPerUnit)
        guard number > 0, !overflow, Duration.seconds(seconds) <= maximumTTL else {
            throw TokenMinterError(code: .invalidTTL, message: "'\(text)' is not between 1 second and 366 days; \(usage)")
        }
        return .seconds(seconds)
    }
}
