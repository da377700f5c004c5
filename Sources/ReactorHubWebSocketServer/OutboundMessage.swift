internal import CLibWebSockets

/// One text message on its way out, shared by reference among every connection it is
/// sent to: a broadcast to a thousand subscribers costs one allocation, not a thousand.
///
/// The bytes live in one allocation that starts with `headroom` spare bytes, which
/// libwebsockets needs in front of a payload to write the frame header in place.
///
/// Safety of `@unchecked Sendable`: the payload is written once in `init` and only read
/// afterwards. The headroom in front of it is scribbled on by libwebsockets, but only on
/// the service thread and only while it writes this message, one write at a time; no
/// other code reads the headroom.
public final class OutboundMessage: @unchecked Sendable {
    /// Bytes libwebsockets needs writable in front of every payload.
    public static let headroom: Int = Int(rh_lws_pre())

    /// The payload size in bytes (without the headroom).
    public let count: Int
    private let storage: UnsafeMutableRawPointer

    /// Copies `bytes` (UTF-8 JSON text) into a new message.
    public convenience init(_ bytes: some Collection<UInt8>) {
        self.init(count: bytes.count) { buffer in
            _ = buffer.initialize(from: bytes)
        }
    }

    /// Copies the UTF-8 of `text` into a new message.
    public convenience init(text: String) {
        self.init(text.utf8)
    }

    /// Creates a message of `count` bytes written by `body` in place.
    public init(count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        precondition(count >= 0)
        self.count = count
        self.storage = UnsafeMutableRawPointer.allocate(byteCount: Self.headroom + count + 1, alignment: 16)
        let payload = (storage + Self.headroom).bindMemory(to: UInt8.self, capacity: count)
        body(UnsafeMutableBufferPointer(start: payload, count: count))
    }

    deinit {
        storage.deallocate()
    }

    /// Reads the payload.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage + Self.headroom, count: count))
    }

    /// The payload as a String (tests and logs).
    public var text: String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Start of the payload, with `headroom` writable bytes before it (service thread only).
    var payloadPointer: UnsafeMutablePointer<UInt8> {
        (storage + Self.headroom).assumingMemoryBound(to: UInt8.self)
    }
}
