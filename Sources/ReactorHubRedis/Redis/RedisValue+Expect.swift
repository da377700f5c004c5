/// Reading expected shapes out of replies; a mismatch is an `.unexpectedReply` error
/// naming what was being read, never a crash.
extension RedisValue {
    /// The elements of an array reply, or `.unexpectedReply`.
    func expectArray(_ what: String) throws(RedisError) -> [RedisValue] {
        guard let array else { throw RedisError(.unexpectedReply, "\(what): expected an array, got \(self)") }
        return array
    }

    /// An integer (or a decimal bulk string), or `.unexpectedReply`.
    func expectInteger(_ what: String) throws(RedisError) -> Int {
        guard let integer else { throw RedisError(.unexpectedReply, "\(what): expected an integer, got \(self)") }
        return Int(integer)
    }

    /// The text of a bulk string or status, or `.unexpectedReply`.
    func expectText(_ what: String) throws(RedisError) -> String {
        guard let text else { throw RedisError(.unexpectedReply, "\(what): expected a string, got \(self)") }
        return text
    }

    /// The bytes of a bulk string, or `.unexpectedReply`.
    func expectBytes(_ what: String) throws(RedisError) -> [UInt8] {
        guard let bytes else { throw RedisError(.unexpectedReply, "\(what): expected a string, got \(self)") }
        return bytes
    }

    /// A flat `[field, value, field, value…]` array (HGETALL, stream entry fields) as a
    /// dictionary of field name to bytes.
    func expectFieldMap(_ what: String) throws(RedisError) -> [String: [UInt8]] {
        let flat = try expectArray(what)
        guard flat.count % 2 == 0 else { throw RedisError(.unexpectedReply, "\(what): odd field list") }
        var fields: [String: [UInt8]] = [:]
        for index in stride(from: 0, to: flat.count, by: 2) {
            fields[try flat[index].expectText(what)] = try flat[index + 1].expectBytes(what)
        }
        return fields
    }
}
