import ReactorHubServer

/// `reactorhub`: the daemon with the shipped kinds.
await ReactorHub.main { @Sendable kinds in
    try kinds.includeShipped()
}
