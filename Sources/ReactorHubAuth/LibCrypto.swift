internal import CCrypto

/// Where libcrypto's results become Swift values: its error queue read as text, in one place.
enum LibCrypto {
    /// The errors libcrypto queued on this thread, as one readable string, emptying the queue.
    ///
    /// "no details from libcrypto" when it queued nothing.
    static func takeErrors() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            guard code != 0 else { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no details from libcrypto" : messages.joined(separator: "; ")
    }

    /// Forgets the errors a failed check queued (a wrong signature is an answer, not a fault).
    static func clearErrors() {
        ERR_clear_error()
    }
}
