import Foundation

/// How a `HubClient` connects, reconnects and resends. The defaults are those of the
/// JavaScript client (`web/reactorhub.js`): reconnect with an exponential backoff from
/// 250 ms to 8 s, minus up to half of it at random.
public struct HubClientOptions: Sendable {
    /// Subprotocols offered on the upgrade.
    public var subprotocols: [String] = ["reactorhub.v1"]
    /// Reconnect after the connection drops (the first connection is never retried:
    /// `HubClient.connect` throws instead).
    public var reconnect = true
    /// The delay before the first reconnect attempt.
    public var initialDelay: Duration = .milliseconds(250)
    /// The longest delay between two attempts.
    public var maxDelay: Duration = .seconds(8)
    /// How much each delay grows over the last.
    public var backoffFactor = 2.0
    /// Up to this share of each delay is taken off at random (0 takes nothing off).
    public var jitter = 0.5
    /// The random numbers (in `0..<1`) for the jitter; injectable for tests.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// A connection that sends no `hello` within this time is dropped (and retried).
    public var helloTimeout: Duration = .seconds(10)
    /// A token is refreshed this long before it expires (halfway, when it lives less
    /// than twice as long).
    public var tokenRefreshLead: Duration = .seconds(30)
    /// Whether an action whose answer was lost with the connection is sent again, once,
    /// with the same `id`, after the reactor is joined again (PROTOCOL.md, "Actions that
    /// are safe to resend"). Off: such actions fail with `disconnected`.
    public var resendsUnansweredActions = true
    /// How many actions may wait for the connection at once (dispatched while disconnected,
    /// or before their reactor's join is answered, or waiting for a resend): past it,
    /// `dispatch` fails with `queue_full` and nothing is queued.
    public var maxQueuedActions = 1000
    /// Makes the `id` of each action; a random UUID by default.
    public var makeActionID: @Sendable () -> String = { UUID().uuidString.lowercased() }
    /// Ask for a checksum on every snapshot, `resumed` and patch (PROTOCOL.md "Checksums"),
    /// check each against the state held, and join afresh when one does not match
    /// (`HubClient.mismatches`, `HubClient.checksumMismatches`).
    public var checksums = false
    /// How many pulses a pulse stream keeps for a reader that does not keep up.
    public var pulseBufferLimit = 256
    /// The socket to connect with; `nil` takes the platform's (libwebsockets on Linux,
    /// `URLSessionWebSocketTask` on Apple platforms), owned and shut down by the client.
    public var socket: (any ClientSocket)?
    /// For the platform socket and `wss://`: a PEM bundle of extra certificate authorities.
    public var caFile: String?
    /// For the platform socket and `wss://`: accept any certificate (tests only).
    public var allowsInsecureTLS = false

    /// Creates the default options.
    public init() {}

    var backoff: Backoff {
        Backoff(initial: initialDelay, maximum: maxDelay, factor: backoffFactor, jitter: jitter)
    }
}
