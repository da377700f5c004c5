import ChatKit
import ReactorHubServer

extension ChatSettings: KindSettings {
    public func validate() throws(KindSettingsError) {
        guard maxMessages >= 1 else { throw KindSettingsError(key: "maxMessages", "must be at least 1, got \(maxMessages)") }
        guard maxTextLength >= 1 else { throw KindSettingsError(key: "maxTextLength", "must be at least 1, got \(maxTextLength)") }
    }
}

// The whole daemon (config file, flags, signals, persistence, auth, cluster, metrics)
// serving the shipped kinds and `chat`, whose settings come from `reactors.chat`.
await ReactorHub.main { @Sendable kinds in
    try kinds.includeShipped()
    // Read back after a restart (or by a node that takes the chat over), nobody is in the
    // room yet: the member list starts afresh from the connections that join.
    try kinds.register("chat", settings: ChatSettings.self, restore: ChatReactor.restored) { settings in
        ChatReactor(settings: settings)
    }
}
