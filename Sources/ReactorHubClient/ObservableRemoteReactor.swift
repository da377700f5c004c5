public import Observation
import ReactorHubJSON

/// A remote reactor for SwiftUI: an `@Observable` (Observation framework) view whose `state`
/// is the shown state, so a view that reads `reactor.state.value` re-renders when it changes.
///
/// ```swift
/// struct CounterScreen: View {
///     let reactor: ObservableRemoteReactor<CounterReactor.State, CounterReactor.Action>
///     var body: some View {
///         Text("\(reactor.state.value)")
///         Button("+") { reactor.send(.increase) }
///             .task { await reactor.run() }   // follows the remote reactor while shown
///     }
/// }
/// ```
///
/// Each observed property is assigned only when its value changes: `state` when the shown
/// state does (a snapshot, a patch, a prediction, a rollback), never for a pulse, a presence
/// change or a revision that changes only the pending count (a patch that was predicted);
/// `pendingCount`, `version` and `confirmedState` on their own changes. It follows the remote
/// reactor while `run()` runs (keeping up with the latest revision: a view that is behind
/// sees the newest state, not each one). Pulses stay on `remote.pulse(_:)`.
@MainActor
@Observable
public final class ObservableRemoteReactor<State: Decodable & Sendable, Action: Sendable> {
    /// The shown state: the confirmed state with this client's pending actions predicted on top.
    public private(set) var state: State
    /// The server's state at `version`.
    public private(set) var confirmedState: State
    /// This client's actions that are pending here (queued, sent, or not yet confirmed).
    public private(set) var pendingCount: Int
    /// The confirmed state's version.
    public private(set) var version: Int
    /// The last refusal or failure of an action sent with `send(_:)`; nil until one fails.
    public private(set) var lastError: HubClientError?

    /// The remote reactor this view follows.
    @ObservationIgnored public let remote: RemoteReactor<State, Action>
    @ObservationIgnored private var shownJSON: JSONValue
    @ObservationIgnored private var confirmedJSON: JSONValue
    /// The number of the last revision taken (`Revision.number`).
    @ObservationIgnored private(set) var revisionNumber: UInt64

    /// A view of `remote`, starting from the state it holds now; call `run()` to follow it.
    public init(_ remote: RemoteReactor<State, Action>) {
        self.remote = remote
        let revision = remote.revision
        state = remote.state
        confirmedState = remote.confirmedState
        pendingCount = revision.pendingCount
        version = revision.version
        shownJSON = revision.state
        confirmedJSON = revision.confirmedState
        revisionNumber = revision.number
    }

    /// Follows the remote reactor until it is left, the client closes, or the calling task
    /// is cancelled (SwiftUI's `.task { await reactor.run() }` cancels it when the view goes).
    public func run() async {
        let revisions = remote.revisions()
        for await revision in revisions {
            apply(revision)
        }
    }

    /// Takes a revision, assigning only what changed.
    func apply(_ revision: Revision) {
        guard revision.number > revisionNumber else { return }
        revisionNumber = revision.number
        if revision.state != shownJSON, let shown = try? remote.decode(revision) {
            shownJSON = revision.state
            state = shown
        }
        if revision.confirmedState != confirmedJSON {
            // With nothing pending the confirmed state is the shown one: decoded once.
            if revision.pendingCount == 0, revision.confirmedState == shownJSON {
                confirmedJSON = revision.confirmedState
                confirmedState = state
            } else if let confirmed = try? remote.decode(revision, json: \.confirmedState) {
                confirmedJSON = revision.confirmedState
                confirmedState = confirmed
            }
        }
        if revision.pendingCount != pendingCount {
            pendingCount = revision.pendingCount
        }
        if revision.version != version {
            version = revision.version
        }
    }

    /// Sends `action` (predicted at once when the remote reactor has a predictor); a refusal
    /// or failure lands in `lastError`.
    public func send(_ action: Action) {
        let remote = remote
        Task {
            do throws(HubClientError) {
                try await remote.send(action)
            } catch {
                self.lastError = error
            }
        }
    }

    /// Sends `action` and returns the server's ack, or throws its refusal.
    public func dispatch(_ action: Action) async throws(HubClientError) -> ActionAck {
        try await remote.dispatch(action)
    }
}
