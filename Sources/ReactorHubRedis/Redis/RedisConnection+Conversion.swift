internal import CHiredis
#if canImport(Glibc)
import Glibc
#endif

/// hiredis structures to Swift values and back, in one place.
extension RedisConnection {
    /// Calls `body` with a C argv (pointers into one contiguous copy of the arguments) and
    /// their lengths, so that NUL and non-UTF-8 bytes pass through unchanged.
    static func withArgv<Result>(
        _ arguments: [RedisArgument],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> Result
    ) -> Result {
        var flat: [UInt8] = []
        flat.reserveCapacity(arguments.reduce(1) { $0 + $1.bytes.count })
        var offsets: [Int] = []
        var lengths: [Int] = []
        for argument in arguments {
            offsets.append(flat.count)
            lengths.append(argument.bytes.count)
            flat.append(contentsOf: argument.bytes)
        }
        flat.append(0)  // never empty, so the buffer has an address even for empty arguments
        return flat.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            var argv: [UnsafePointer<CChar>?] = offsets.map { base + $0 }
            return argv.withUnsafeMutableBufferPointer { argvBuffer in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    body(Int32(arguments.count), argvBuffer.baseAddress!, lengthBuffer.baseAddress!)
                }
            }
        }
    }

    /// Copies a hiredis reply tree into a `RedisValue`.
    static func value(_ reply: UnsafeMutablePointer<redisReply>) -> RedisValue {
        let node = reply.pointee
        switch node.type {
        case rh_redis_reply_string():
            return .string(bytes(node.str, node.len))
        case rh_redis_reply_integer():
            return .integer(node.integer)
        case rh_redis_reply_array():
            var elements: [RedisValue] = []
            elements.reserveCapacity(node.elements)
            for index in 0..<node.elements {
                if let element = node.element[index] {
                    elements.append(value(element))
                } else {
                    elements.append(.null)
                }
            }
            return .array(elements)
        case rh_redis_reply_status():
            return .status(String(decoding: bytes(node.str, node.len), as: UTF8.self))
        case rh_redis_reply_error():
            return .error(RedisError(.reply, String(decoding: bytes(node.str, node.len), as: UTF8.self)))
        default:
            return .null
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count).bindMemory(to: UInt8.self))
    }

    /// The error recorded in `context.err`/`errstr`, as a `RedisError`.
    static func contextError(_ context: UnsafeMutablePointer<redisContext>, while action: String) -> RedisError {
        let text = withUnsafeBytes(of: context.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let detail = text.isEmpty ? "unknown error" : text
        switch context.pointee.err {
        case rh_redis_err_protocol():
            return RedisError(.protocolViolation, "\(action): \(detail)")
        case rh_redis_err_io() where detail.contains("temporarily unavailable") || detail.contains("timed out"):
            return RedisError(.timeout, "\(action): no answer within the timeout")
        case rh_redis_err_eof():
            return RedisError(.connection, "\(action): the server closed the connection")
        default:
            return RedisError(.connection, "\(action): \(detail)")
        }
    }

    /// The command's name for messages (never its arguments, which may be large or private).
    static func name(_ arguments: [RedisArgument]) -> String {
        arguments.first.map { String(decoding: $0.bytes, as: UTF8.self) } ?? "an empty command"
    }
}

extension Duration {
    /// The duration as a `struct timeval`, for hiredis' timeouts.
    var timeval: timeval {
        let (seconds, attoseconds) = components
        return Glibc.timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
