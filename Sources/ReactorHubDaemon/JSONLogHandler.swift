#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ReactorHubJSON
import ReactorHubLogging
import Synchronization

/// Writes one JSON object per record to standard error (`"logFormat": "json"`):
/// `{"time":"2026-11-30T04:22:37.123Z","level":"info","label":"hub","message":"joined","metadata":{"session":"c7"}}`,
/// `metadata` sorted by key and left out when empty.
struct JSONLogHandler: LogHandler {
    private static let lock = Mutex(())
    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    func write(_ record: LogRecord) {
        var line: JSONObject = [
            "time": .string(Date.now.formatted(Self.timeFormat)),
            "level": .string(record.level.rawValue),
            "label": .string(record.label),
            "message": .string(record.message),
        ]
        if !record.metadata.isEmpty {
            line["metadata"] = .object(JSONObject(record.metadata.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
        }
        var writer = JSONWriter()
        writer.writeValue(.object(line))
        writer.writeByte(UInt8(ascii: "\n"))
        let bytes = writer.bytes
        Self.lock.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
        }
    }
}
