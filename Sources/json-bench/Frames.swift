import ReactorHubAuth
import ReactorHubDeflate
import ReactorHubJSON
import ReactorHubProtocol

/// `json-bench frames`: what a frame costs beyond its JSON. Compressing it once for
/// permessage-deflate (zlib, raw DEFLATE with a sync flush, the stream reset per message),
/// by size and level, and what it saves; and the checksum of a state per version (RFC 8785
/// canonical form, then SHA-256: libcrypto's, the daemon's, and the portable one, the
/// Swift client's) for a state of about 1 KB and one of about 100 KB.
enum Frames {
    static func run() {
        print("permessage-deflate: one compression per frame (MessageDeflater, window 15; level, zlib's memLevel)")
        for (name, frame) in samples() {
            for (level, memoryLevel): (Int32, Int32) in [(1, 8), (6, 8), (1, 4), (6, 4)] {
                let deflater = MessageDeflater(level: level, memoryLevel: memoryLevel)
                let size = frame.withUnsafeBytes { bytes in deflater.compress(bytes) { $0.count } }
                let iterations = max(200, 2_000_000 / max(frame.count, 1))
                let measured = Measurement.run("\(name) level \(level) mem \(memoryLevel)", iterations: iterations) {
                    frame.withUnsafeBytes { bytes in deflater.compress(bytes) { $0.count } }
                }
                let ratio = Double(size) / Double(frame.count)
                measured.report("\(frame.count) → \(size) bytes (\(Measurement.format(ratio, decimals: 2))×)")
            }
        }
        print("")
        print("state checksums: canonical form + SHA-256, per version")
        for (name, state) in states() {
            let canonical = state.canonicalized()
            let libcrypto = StateChecksum { LibCryptoSHA256.digest($0) }
            let portable = StateChecksum()
            let iterations = max(50, 2_000_000 / canonical.count)
            Measurement.run("\(name): canonical form", iterations: iterations) { state.canonicalized().count }
                .report("\(canonical.count) bytes")
            Measurement.run("\(name): SHA-256, libcrypto", iterations: iterations) {
                canonical.withUnsafeBytes { LibCryptoSHA256.digest($0) }.count
            }.report()
            Measurement.run("\(name): SHA-256, portable", iterations: iterations) {
                canonical.withUnsafeBytes { SHA256.digest($0) }.count
            }.report()
            Measurement.run("\(name): sum (daemon: libcrypto)", iterations: iterations) { libcrypto.sum(of: state).count }.report()
            Measurement.run("\(name): sum (Swift client: portable)", iterations: iterations) { portable.sum(of: state).count }.report()
        }
    }

    /// Frames as the hub writes them: single-version patches of the counter, todo and doc
    /// kinds, a merged patch of 15 versions, snapshots.
    static func samples() -> [(String, [UInt8])] {
        let counter = #"{"type":"patch","reactor":"counter/lobby","version":42,"patch":[{"op":"replace","path":"/value","value":12}]}"#
        let todo = #"{"type":"patch","reactor":"todo/lobby","version":42,"patch":[{"op":"add","path":"/items/3","value":{"id":"i42","title":"Buy milk and eggs","done":false}}]}"#
        let doc = #"{"type":"patch","reactor":"doc/b1","version":42,"patch":[{"op":"replace","path":"/s0","value":{"t":1764790000123456789,"seq":12345,"pad":"x"}}]}"#
        let merged = #"{"type":"patch","reactor":"doc/b1","version":57,"base":42,"patch":["#
            + (0..<15).map { #"{"op":"replace","path":"/s0","value":{"t":17647900001\#(23_456_789 + $0 * 7919),"seq":\#(12345 + $0),"pad":"x"}}"# }.joined(separator: ",")
            + "]}"
        var writer = JSONWriter()
        writer.writeValue(todoState(items: 30))
        let todoSnapshot = #"{"type":"snapshot","reactor":"todo/lobby","epoch":"0123456789abcdef","version":40,"state":"#
            + String(decoding: writer.bytes, as: UTF8.self) + #","presence":{}}"#
        writer = JSONWriter()
        writer.writeValue(docState(bytes: 100_000))
        let docSnapshot = #"{"type":"snapshot","reactor":"doc/big","epoch":"0123456789abcdef","version":40,"state":"#
            + String(decoding: writer.bytes, as: UTF8.self) + #","presence":{}}"#
        return [
            ("counter patch", Array(counter.utf8)), ("todo patch", Array(todo.utf8)), ("doc patch", Array(doc.utf8)),
            ("doc patch, 15 versions merged", Array(merged.utf8)), ("todo snapshot, 30 items", Array(todoSnapshot.utf8)),
            ("doc snapshot, 100 KB", Array(docSnapshot.utf8)),
        ]
    }

    /// A todo list of about 1 KB and a doc of about 100 KB.
    static func states() -> [(String, JSONValue)] {
        [("todo state of 1 KB", todoState(items: 14)), ("doc state of 100 KB", docState(bytes: 100_000))]
    }

    static func todoState(items: Int) -> JSONValue {
        .object(["items": .array((0..<items).map { index in
            .object(["id": .string("i\(index)"), "title": .string("Item number \(index) to do"), "done": .bool(index % 3 == 0)])
        })])
    }

    /// A document of sections with titles, numbers and paragraphs, `bytes` long or a little more.
    static func docState(bytes: Int) -> JSONValue {
        var object = JSONObject()
        var index = 0
        var size = 2
        let words = ["state", "patch", "reactor", "version", "client", "server", "frame", "sum", "deflate", "window"]
        while size < bytes {
            let text = (0..<24).map { words[($0 * 7 + index) % words.count] }.joined(separator: " ")
            let section: JSONValue = .object([
                "title": .string("Section \(index) — é"), "weight": .double(Double(index) * 0.37 + 0.1), "count": .int(index * 13),
                "text": .string(text), "tags": .array([.string("t\(index % 5)"), .string("draft")]),
            ])
            object["s\(index)"] = section
            size += section.serialized().count + 8
            index += 1
        }
        return .object(object)
    }
}
