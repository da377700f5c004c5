import PollKit
import ReactorHubServer

extension PollSettings: KindSettings {}

// The whole daemon (config file, flags, signals, persistence, auth, metrics) serving the
// shipped kinds and `poll`, whose settings come from `reactors.poll`.
await ReactorHub.main { @Sendable kinds in
    try kinds.includeShipped()
    try kinds.register("poll", settings: PollSettings.self) { settings in
        PollReactor(settings: settings, announcer: .live(tallyMs: settings.tallyMs))
    }
}
