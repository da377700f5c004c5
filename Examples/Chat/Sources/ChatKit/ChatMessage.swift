/// One message of a chat: who wrote it (the author's token `sub`, never what a client
/// claims) and what it says.
public struct ChatMessage: Codable, Sendable, Equatable {
    /// Unique within the chat.
    public var id: String
    /// The user who said it.
    public var author: String
    /// The text, 1 to `maxTextLength` characters.
    public var text: String

    public init(id: String, author: String, text: String) {
        self.id = id
        self.author = author
        self.text = text
    }
}
