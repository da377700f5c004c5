import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One text message on its way out, shared by reference among every connection it is
/// sent to: a broadcast to a thousand subscribers costs one allocation, not a thousand.
///
/// The bytes live in one allocation that starts with `headroom` spare bytes, where a
/// transport writes the frame header in place (libwebsockets needs `LWS_PRE` of them).
/// The transport says how much it needs (`MessageTransport.frameHeadroom`) and the codec
/// that writes the messages reserves it; a message with too little is copied once by the
/// transport that writes it.
///
/// Safety of `@unchecked Sendable`: the payload is written once in `init` and only read
/// afterwards. The headroom in front of it is written at most once, under a lock, by the
/// transport that frames it (`framed`), and only read after that: connections on several
/// service threads send the same message. Its compressed form is set at most once,
/// atomically.
public final class OutboundMessage: @unchecked Sendable {
    /// The headroom messages get unless their writer asks otherwise: enough for every
    /// transport here (libwebsockets 4.1 needs 16 bytes on 64-bit machines).
    public static let standardHeadroom = 16

    /// Writable bytes in front of the payload.
    public let headroom: Int

    /// The payload size in bytes (without the headroom).
    public let count: Int
    /// What the message is (`MessageLabel`), for transports that frame kinds differently.
    public let label: MessageLabel
    private let storage: UnsafeMutableRawPointer
    /// The message as a transport compresses it, once for every connection it goes to.
    private let compressedForm = AtomicLazyReference<OutboundMessage>()
    /// The bytes of the frame header written in front of the payload (0: not yet).
    private let headerBytes = Mutex<Int>(0)
    /// `headerBytes` once written (0 before): every send after the first reads it without
    /// the lock (each subscriber's write of a broadcast, on every service thread).
    private let framedHeader = Atomic<Int>(0)

    /// Copies `bytes` (UTF-8 JSON text) into a new message.
    public convenience init(_ bytes: some Collection<UInt8>, headroom: Int = OutboundMessage.standardHeadroom, label: MessageLabel = .reply) {
        self.init(count: bytes.count, headroom: headroom, label: label) { buffer in
            _ = buffer.initialize(from: bytes)
        }
    }

    /// Copies the UTF-8 of `text` into a new message.
    public convenience init(text: String) {
        self.init(text.utf8)
    }

    /// Creates a message of `count` bytes written by `body` in place.
    public init(
        count: Int, headroom: Int = OutboundMessage.standardHeadroom, label: MessageLabel = .reply,
        _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void
    ) {
        precondition(count >= 0 && headroom >= 0)
        self.count = count
        self.headroom = headroom
        self.label = label
        // Bytes only, from malloc itself: `UnsafeMutableRawPointer.allocate` goes through
        // posix_memalign, a slower path of glibc, whatever the alignment asked.
        guard let storage = malloc(headroom + count + 1) else { fatalError("out of memory for a message of \(count) bytes") }
        self.storage = storage
        let payload = (storage + headroom).bindMemory(to: UInt8.self, capacity: count)
        body(UnsafeMutableBufferPointer(start: payload, count: count))
    }

    deinit {
        free(storage)
    }

    /// Reads the payload.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage + headroom, count: count))
    }

    /// The payload as a String (tests and logs).
    public var text: String {
        withBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The message as the transport sends it compressed (permessage-deflate): made by
    /// `make` for the first connection that needs it, on any thread, and shared by every
    /// connection after it (two threads racing may both make it; one result is kept).
    package func compressed(_ make: (OutboundMessage) -> OutboundMessage) -> OutboundMessage {
        if let made = compressedForm.load() { return made }
        return compressedForm.storeIfNil(make(self))
    }

    /// The message with its frame header in front: `write` gets the payload's start and
    /// writes the header just before it (within `headroom`), returning its size. Called for
    /// the first writer only; every writer, on any thread, gets the header's size and may
    /// then send the header and payload from `payloadPointer - size`.
    package func framed(_ write: (UnsafeMutablePointer<UInt8>) -> Int) -> Int {
        let known = framedHeader.load(ordering: .acquiring)
        if known > 0 { return known }
        return headerBytes.withLock { written in
            if written == 0 {
                written = write(payloadPointer)
                precondition(written > 0 && written <= headroom, "a frame header must fit the headroom")
                framedHeader.store(written, ordering: .releasing)
            }
            return written
        }
    }

    /// Start of the payload, with `headroom` writable bytes before it (the writing
    /// transport's thread only).
    public var payloadPointer: UnsafeMutablePointer<UInt8> {
        (storage + headroom).assumingMemoryBound(to: UInt8.self)
    }
}
