import ReactorHubProtocol
/// The messages a connection to the echo path has received and not yet written back.
/// Reading pauses while it holds more than `pauseBytes`, so a client that sends without
/// reading cannot make it grow without bound.
struct EchoQueue {
    /// One message to send back as it came: text or binary.
    struct Item {
        var message: OutboundMessage
        var isBinary: Bool
    }

    let pauseBytes: Int
    private var items: [Item] = []
    private var first = 0
    /// Payload bytes waiting.
    private(set) var bytes = 0

    init(pauseBytes: Int) {
        self.pauseBytes = pauseBytes
    }

    var isEmpty: Bool { first == items.count }

    /// Whether reading should pause until some of it is written.
    var isFull: Bool { bytes > pauseBytes }

    mutating func append(_ bytes: [UInt8], isBinary: Bool) {
        items.append(Item(message: OutboundMessage(bytes, headroom: LWSHeadroom.bytes), isBinary: isBinary))
        self.bytes += bytes.count
    }

    /// The oldest message, removed from the queue.
    mutating func next() -> Item? {
        guard first < items.count else { return nil }
        let item = items[first]
        first += 1
        bytes -= item.message.count
        if first == items.count {
            items.removeAll(keepingCapacity: true)
            first = 0
        }
        return item
    }
}
