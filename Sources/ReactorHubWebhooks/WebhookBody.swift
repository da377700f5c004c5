import Foundation
import ReactorHubEngine
import ReactorHubJSON
#if canImport(Glibc)
import Glibc
#endif

/// The body of a webhook delivery (API.md "Webhooks"): `{"id","event","time","reactor",…}`
/// and the members of its event.
enum WebhookBody {
    /// The body of `event`, delivered as `id`, which happened at `time`.
    static func make(_ event: InstanceEvent, id: String, time: Date) -> [UInt8] {
        var object: JSONObject = [
            "id": .string(id), "event": .string(event.kind.rawValue), "time": .string(rfc3339(time)),
            "reactor": .string(event.address.description),
        ]
        switch event {
        case .created(_, let epoch, let version), .evicted(_, let epoch, let version):
            object["epoch"] = .string(epoch)
            object["version"] = .int(version)
        case .pulse(_, let version, let name, let value):
            object["version"] = .int(version)
            object["name"] = .string(name)
            object["value"] = value
        case .action(_, let user, let action, let version, let applied):
            object["sub"] = user.map(JSONValue.string) ?? .null
            object["action"] = action
            object["version"] = .int(version)
            object["applied"] = .int(applied)
        }
        var writer = JSONWriter()
        writer.writeValue(.object(object))
        return writer.bytes
    }

    /// `2026-12-03T20:51:34.072Z`: RFC 3339, UTC, milliseconds.
    static func rfc3339(_ time: Date) -> String {
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let fraction = String(milliseconds % 1000 + 1000).dropFirst()
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }
}
