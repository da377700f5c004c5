import Foundation
import Testing
import ReactorHubJSON

/// Every walk over a value at the deepest nesting the daemon can hold (a state at
/// `JSONValue.maximumStateDepth` inside the frames that carry it, which is what the parser
/// accepts), on a thread whose stack is half the daemon's smallest (every thread has 8 MiB,
/// the service threads included): parse, write, size, depth, equality, hashing, both
/// diffs, patching, the value coders, the action decoder, and freeing. In debug builds
/// too, where the parser takes about 2.6 MiB at this depth and the others about 1.2 MiB:
/// a walk whose frames grow too large overflows here and crashes the test run.
@Suite struct DeepDocumentTests {
    static let depth = JSONParser.defaultMaximumDepth
    static let stack = 4 << 20

    @Test func theParserAcceptsEveryStateTheDaemonCanHoldInsideItsFrames() {
        // A patch frame carries a state in {"patch":[{"value": STATE}]}; an action carries
        // one in {"action":{"ops":[{"value": …}]}}; an admin listing's history in
        // {"history":[{"patch":[{"value": …}]}]}: at most 5 more levels.
        #expect(JSONParser.defaultMaximumDepth >= JSONValue.maximumStateDepth + 5)
    }

    @Test func everyWalkIsSafeAtTheDeepestParsableNesting() throws {
        let results = try onSmallStack { () throws -> [String] in
            let text = Self.nestedText(depth: Self.depth, leaf: "1")
            let changedText = Self.nestedText(depth: Self.depth, leaf: "2")
            let value = try JSONValue(parsing: text)
            let copy = try JSONValue(parsing: text)
            let changed = try JSONValue(parsing: changedText)
            var facts: [String] = []
            facts.append("depth \(value.depth(limit: Self.depth))")
            facts.append("written \(value.serialized() == Array(text.utf8))")
            facts.append("described \(value.description == text)")
            facts.append("size \(value.serializedByteCount() == text.utf8.count)")
            facts.append("equal \(value == copy) \(value == changed)")
            facts.append("hash \(value.hashValue == copy.hashValue)")
            let leaf = Self.leafPointer(depth: Self.depth)
            facts.append("diff \(JSONPatch.diff(from: value, to: changed) == [.replace(path: leaf, value: 2)])")
            facts.append("text diff \(JSONPatch.diff(from: value, to: changed, equality: .text) == [.replace(path: leaf, value: 2)])")
            let patched = try JSONPatch.apply([.test(path: leaf, value: 1), .replace(path: leaf, value: 2)], to: value)
            facts.append("patched \(patched == changed)")
            facts.append("pointer \(value[pointer: leaf] == 1)")
            let decoded = try JSONValueDecoder().decode(Wrapper.self, from: ["value": value])
            facts.append("decoded \(decoded.value == value)")
            facts.append("encoded \(try JSONValueEncoder().encode(decoded) == ["value": value])")
            let action = try ActionDecoder().decode(DocAction.self, from: ["type": "set", "path": "/x", "value": value])
            facts.append("action \(action == .set(path: "/x", value: copy))")
            return facts
            // `value`, its copies and everything built from them are freed here, on this stack.
        }
        #expect(results == [
            "depth \(Self.depth)", "written true", "described true", "size true", "equal true false", "hash true",
            "diff true", "text diff true", "patched true", "pointer true", "decoded true", "encoded true", "action true",
        ])
    }

    @Test func aDocumentBuiltByPatchesToTheStateLimitIsFreedOnASmallStack() throws {
        let depth = try onSmallStack { () throws -> Int in
            var document: JSONValue = [:]
            var path = JSONPointer(tokens: [])
            for level in 1..<JSONValue.maximumStateDepth {
                let token = "k\(level)"
                document = try JSONPatch.apply([.add(path: path.appending(token), value: [:])], to: document)
                path = path.appending(token)
            }
            return document.depth()
        }
        #expect(depth == JSONValue.maximumStateDepth)
    }

    struct Wrapper: Codable, Equatable {
        var value: JSONValue
    }

    /// `{"a":[{"a":[…leaf…]}]}`: objects and arrays alternating, `depth` containers deep.
    static func nestedText(depth: Int, leaf: String) -> String {
        var opening = ""
        var closing = ""
        for level in 0..<depth {
            if level % 2 == 0 {
                opening += #"{"a":"#
                closing = "}" + closing
            } else {
                opening += "["
                closing = "]" + closing
            }
        }
        return opening + leaf + closing
    }

    /// The pointer to the leaf of `nestedText(depth:leaf:)`.
    static func leafPointer(depth: Int) -> JSONPointer {
        JSONPointer(tokens: (0..<depth).map { $0 % 2 == 0 ? "a" : "0" })
    }
}

/// Runs `body` on a thread with a stack of `DeepDocumentTests.stack` bytes and returns
/// its result.
func onSmallStack<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) throws -> Result {
    let outcome = LockedBox<Swift.Result<Result, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        outcome.set(Swift.Result { try body() })
        done.signal()
    }
    thread.stackSize = DeepDocumentTests.stack
    thread.start()
    done.wait()
    return try outcome.get()!.get()
}

/// A value handed from one thread to another under a lock.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func set(_ newValue: Value) {
        lock.withLock { value = newValue }
    }

    func get() -> Value {
        lock.withLock { value }
    }
}
