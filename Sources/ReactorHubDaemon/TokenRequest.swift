/// `reactorhub token --sub SUB [--read PATTERN]… [--act PATTERN]… [--no-rights] [--ttl 1h]
/// [--config FILE]`: a token to mint with the configuration's `auth.hs256Secret` (its
/// `--config` is `CommandLineOptions.configFile`). Without `--read` or `--act` the command
/// is refused unless `--no-rights` says that a token without rights is what is wanted.
public struct TokenRequest: Sendable, Equatable {
    /// `--sub`: the token's `sub` claim, 1 to 128 characters.
    public var sub: String
    /// `--read`: the patterns of the `rh.read` claim, in order.
    public var read: [String] = []
    /// `--act`: the patterns of the `rh.act` claim, in order.
    public var act: [String] = []
    /// `--ttl`: seconds from now to `exp`; one hour unless given.
    public var ttlSeconds = 3600

    /// A request for `sub` with no rights, valid one hour.
    public init(sub: String, read: [String] = [], act: [String] = [], ttlSeconds: Int = 3600) {
        self.sub = sub
        self.read = read
        self.act = act
        self.ttlSeconds = ttlSeconds
    }

    /// The options of `token`, for "did you mean".
    static let options = ["--sub", "--read", "--act", "--no-rights", "--ttl", "--config", "--help"]

    /// A rights pattern given to `flag`.
    static func pattern(_ text: String, flag: String) throws(ConfigurationError) -> String {
        guard !text.isEmpty else { throw ConfigurationError("\(flag) must be a reactor pattern such as \"doc/*\", got \"\"") }
        return text
    }

    /// `90s`, `15m`, `1h`, `7d`, `1h30m` or a bare number of seconds, as seconds.
    static func seconds(_ text: String) throws(ConfigurationError) -> Int {
        let refusal = ConfigurationError("--ttl must be a duration such as 90s, 15m, 1h or 7d, got \"\(text)\"")
        var total = 0
        var digits = ""
        var sawUnit = false
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            let unit: Int
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86400
            default: throw refusal
            }
            guard let number = Int(digits), number <= 1_000_000_000 / unit else { throw refusal }
            total += number * unit
            digits = ""
            sawUnit = true
        }
        if !digits.isEmpty {
            guard !sawUnit, let number = Int(digits), number <= 1_000_000_000 else { throw refusal }
            total += number
        }
        guard total > 0, total <= 1_000_000_000 else { throw refusal }
        return total
    }
}
