extension Logger {
    /// The severity of a log line, from the most verbose to the most severe.
    public enum Level: String, Sendable, CaseIterable, Comparable, Codable {
        case trace, debug, info, notice, warning, error, critical

        private var rank: Int {
            switch self {
            case .trace: 0
            case .debug: 1
            case .info: 2
            case .notice: 3
            case .warning: 4
            case .error: 5
            case .critical: 6
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool {
            lhs.rank < rhs.rank
        }
    }
}
