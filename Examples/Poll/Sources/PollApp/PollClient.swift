public import PollKit
public import ReactorHubClient

/// The app's side of the poll kind: the same `PollReactor` the server runs (from `PollKit`,
/// which both depend on) predicts this app's own actions, so an open, a vote or a close
/// shows at once and the server's state replaces it when it comes (CLIENTS.md "Prediction").
public enum PollClient {
    /// A poll as the app holds it: the shown state (`state`), the server's (`confirmedState`).
    public typealias Poll = RemoteReactor<PollReactor.State, PollReactor.Action>

    /// Joins `poll/ID` with the kind's own code as predictor. The predictor's reactor never
    /// runs an effect past its immediate mutations: its announcer is never called on the
    /// client (the server announces, and the pulse comes from there).
    public static func join(_ hub: HubClient, poll id: String) async throws(HubClientError) -> Poll {
        try await hub.join(
            "poll/\(id)", state: PollReactor.State.self, action: PollReactor.Action.self,
            predictor: .reactor(PollReactor())
        )
    }
}
