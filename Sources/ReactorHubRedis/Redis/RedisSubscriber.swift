#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ReactorHubLocking
public import ReactorHubLogging
import Synchronization

/// A dedicated connection in SUBSCRIBE/PSUBSCRIBE mode, on its own thread, delivering
/// each message to a handler in the order Redis sent them.
///
/// A lost link is never silent: the handler gets `.linkDown`, the subscriber reconnects
/// with backoff, subscribes again to every channel and pattern, and then delivers
/// `.resubscribed`: messages published meanwhile are lost, and the user repairs from the
/// stream (the instance log) what it missed. An idle link is checked with PING, so a
/// server that stopped answering is noticed within `healthCheckInterval` +
/// `commandTimeout`.
///
/// The handler runs on the subscriber's thread: it must be quick and must not wait on
/// Redis (hand the message over to the instance's own executor).
public final class RedisSubscriber: Sendable {
    /// What the handler receives.
    public enum Event: Sendable, Hashable {
        /// A message published on a subscribed channel.
        case message(channel: String, payload: [UInt8])
        /// A message published on a channel matching a subscribed pattern.
        case patternMessage(pattern: String, channel: String, payload: [UInt8])
        /// The link dropped; messages are being lost until `.resubscribed`.
        case linkDown(RedisError)
        /// The link is back and every subscription is in force again; anything published
        /// between `.linkDown` and now was missed and must be read from the stream.
        case resubscribed
    }

    /// The timeouts (and, without a directory, where Redis is).
    public let configuration: RedisConfiguration
    /// Where the link connects: the master now.
    public let directory: MasterDirectory
    let logger: Logger
    let handler: @Sendable (Event) -> Void
    let state = Locked(SubscriberState())
    let link = LinkStateBroadcaster()
    /// The delivery probe asked for a new connection.
    let reconnectRequested = Atomic<Bool>(false)
    let wakePipe: WakePipe

    /// A subscriber on the master `directory` names (by default, the server in
    /// `configuration`, for good), whose events go to `handler` (on the subscriber's
    /// thread). Nothing connects before `start()`.
    public init(
        configuration: RedisConfiguration,
        directory: MasterDirectory? = nil,
        logger: Logger,
        handler: @escaping @Sendable (Event) -> Void
    ) {
        self.configuration = configuration
        self.directory = directory ?? .fixed(configuration.endpoint)
        var logger = logger
        logger[metadataKey: "redis"] = directory == nil ? configuration.endpoint.description : "master"
        self.logger = logger
        self.handler = handler
        self.wakePipe = WakePipe()
    }

    /// Whether the subscriber's link is up now.
    public var isConnected: Bool {
        link.current.isUp
    }

    /// The current link state, then every change.
    public func linkStates() -> AsyncStream<RedisLinkState> {
        link.stream()
    }

    /// Subscribes to `channels` and returns once Redis confirmed every one: from then on
    /// each message published on them is delivered. When the link is down, throws
    /// `.connection`; the channels stay wanted and are subscribed on reconnection (then
    /// `.resubscribed` is delivered).
    public func subscribe(_ channels: [String]) async throws(RedisError) {
        try await request(.channel, channels)
    }

    /// Subscribes to channel patterns (PSUBSCRIBE), as `subscribe` does for channels.
    public func subscribe(patterns: [String]) async throws(RedisError) {
        try await request(.pattern, patterns)
    }

    /// Drops the connection and subscribes again on a new one (the delivery probe found the
    /// link silent): the handler gets `.linkDown`, then `.resubscribed`.
    public func reconnect() {
        reconnectRequested.store(true, ordering: .relaxed)
        wakePipe.wake()
    }

    /// Stops delivering `channels`. A message already on its way may still arrive.
    public func unsubscribe(_ channels: [String]) {
        post(.channel, channels, subscribe: false)
    }

    /// Stops delivering the channels matching `patterns`.
    public func unsubscribe(patterns: [String]) {
        post(.pattern, patterns, subscribe: false)
    }

    private func request(_ kind: SubscriptionKind, _ names: [String]) async throws(RedisError) {
        guard !names.isEmpty else { return }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, RedisError>, Never>) in
            let refusal: RedisError? = state.withLock { state in
                guard !state.stopping else { return RedisError(.closed, "the subscriber was shut down") }
                state.wanted[kind, default: []].formUnion(names)
                guard state.connected else {
                    return RedisError(.connection, "the subscriber's link is down; subscribed on reconnection")
                }
                state.outbox.append(SubscriptionCommand(kind: kind, names: names, subscribe: true))
                state.waiters.append(ConfirmationWaiter(kind: kind, remaining: Set(names), continuation: continuation))
                return nil
            }
            if let refusal {
                continuation.resume(returning: .failure(refusal))
            } else {
                wakePipe.wake()
            }
        }
        try result.get()
    }

    private func post(_ kind: SubscriptionKind, _ names: [String], subscribe: Bool) {
        guard !names.isEmpty else { return }
        state.withLock { state in
            state.wanted[kind, default: []].subtract(names)
            if state.connected {
                state.outbox.append(SubscriptionCommand(kind: kind, names: names, subscribe: subscribe))
            }
        }
        wakePipe.wake()
    }
}

/// SUBSCRIBE (channels) or PSUBSCRIBE (patterns).
enum SubscriptionKind: Sendable, Hashable {
    case channel, pattern
}

/// A change of subscriptions for the thread to send.
struct SubscriptionCommand: Sendable {
    let kind: SubscriptionKind
    let names: [String]
    let subscribe: Bool

    var arguments: [RedisArgument] {
        let verb: RedisArgument = switch (kind, subscribe) {
        case (.channel, true): "SUBSCRIBE"
        case (.channel, false): "UNSUBSCRIBE"
        case (.pattern, true): "PSUBSCRIBE"
        case (.pattern, false): "PUNSUBSCRIBE"
        }
        return [verb] + names.map { RedisArgument($0) }
    }
}

/// A `subscribe` call waiting for Redis to confirm its names.
struct ConfirmationWaiter: Sendable {
    let kind: SubscriptionKind
    var remaining: Set<String>
    let continuation: CheckedContinuation<Result<Void, RedisError>, Never>
}

/// What callers and the subscriber thread share, under the subscriber's lock.
struct SubscriberState: Sendable {
    var wanted: [SubscriptionKind: Set<String>] = [:]
    var outbox: [SubscriptionCommand] = []
    var waiters: [ConfirmationWaiter] = []
    var connected = false
    var started = false
    var stopping = false
    var finished = false
    var exitWaiters: [CheckedContinuation<Void, Never>] = []
}
