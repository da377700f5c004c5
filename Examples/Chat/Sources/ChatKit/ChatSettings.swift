/// The chat kind's settings, `reactors.chat` in the configuration file.
public struct ChatSettings: Codable, Sendable, Equatable {
    /// The most messages a chat keeps; the oldest go first.
    public var maxMessages = 1000
    /// The most characters a message may have.
    public var maxTextLength = 500

    public init() {}
}
