import ReactorHubJSON
import Synchronization
import Testing

/// Keeps weak references to the encoders a value was encoded with.
private final class EncoderSpy: Sendable {
    private let seen = Mutex<[WeakBox]>([])

    struct WeakBox: @unchecked Sendable {
        weak var encoder: AnyObject?
    }

    func note(_ encoder: any Encoder) {
        seen.withLock { $0.append(WeakBox(encoder: encoder as AnyObject)) }
    }

    var count: Int { seen.withLock { $0.count } }
    var alive: Int { seen.withLock { boxes in boxes.filter { $0.encoder != nil }.count } }
}

private struct Leaf: Encodable {
    let spy: EncoderSpy
    func encode(to encoder: any Encoder) throws {
        spy.note(encoder)
        var container = encoder.singleValueContainer()
        try container.encode("leaf")
    }
}

private struct Branch: Encodable {
    let spy: EncoderSpy
    func encode(to encoder: any Encoder) throws {
        spy.note(encoder)
        var container = encoder.container(keyedBy: JSONCodingKey.self)
        try container.encode(Leaf(spy: spy), forKey: JSONCodingKey(stringValue: "a"))
        try container.encode(Leaf(spy: spy), forKey: JSONCodingKey(stringValue: "b"))
        try container.encode(JSONValue.array([1, 2]), forKey: JSONCodingKey(stringValue: "c"))
        var nested = container.nestedUnkeyedContainer(forKey: JSONCodingKey(stringValue: "d"))
        try nested.encode(Leaf(spy: spy))
    }
}

@Suite("Encoder lifetime")
struct EncoderLifetimeTests {
    @Test func noEncoderOutlivesTheEncodingOfAValue() throws {
        let spy = EncoderSpy()
        let json = try JSONValueEncoder().encode(Branch(spy: spy))
        #expect(json == .object(["a": "leaf", "b": "leaf", "c": [1, 2], "d": ["leaf"]]))
        #expect(spy.count == 4)
        // A child encoder kept for reuse once held its parent strongly: the cycle kept the
        // whole object being built alive after every encode.
        #expect(spy.alive == 0)
    }
}
