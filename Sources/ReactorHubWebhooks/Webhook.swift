public import Foundation
public import ReactorHubEngine
public import ReactorHubProtocol

/// One receiver of webhooks (CONFIG.md `webhooks`, API.md "Webhooks"): where events are
/// posted, what signs them, which events of which reactors it hears, and how hard the
/// daemon tries.
public struct Webhook: Sendable {
    /// The receiver's `http://` or `https://` URL.
    public var url: URL
    /// The HMAC-SHA256 key of `X-ReactorHub-Signature`.
    public var secret: [UInt8]
    /// The events it hears.
    public var events: Set<InstanceEvent.Kind>
    /// Whether it hears events of a reactor (its `reactors` rights patterns).
    public var reactors: @Sendable (ReactorAddress) -> Bool
    /// How long one attempt may take before it counts as failed.
    public var timeout: Duration
    /// Attempts per event, the first included; then the event is dropped (and counted).
    public var maxAttempts: Int
    /// Bytes of event bodies queued for the receiver; past it the oldest are dropped.
    public var queueBytes: Int

    /// A receiver at `url`, with the defaults of CONFIG.md for the rest.
    public init(
        url: URL, secret: [UInt8], events: Set<InstanceEvent.Kind> = Set(InstanceEvent.Kind.allCases),
        reactors: @escaping @Sendable (ReactorAddress) -> Bool = { _ in true }, timeout: Duration = .seconds(5), maxAttempts: Int = 8,
        queueBytes: Int = 8 << 20
    ) {
        self.url = url
        self.secret = secret
        self.events = events
        self.reactors = reactors
        self.timeout = timeout
        self.maxAttempts = max(maxAttempts, 1)
        self.queueBytes = queueBytes
    }

    /// Whether it hears events of `kind` in `address`.
    func hears(_ kind: InstanceEvent.Kind, in address: ReactorAddress) -> Bool {
        events.contains(kind) && reactors(address)
    }
}
