import Foundation

/// How a request head frames its body (RFC 9112 section 6.3), as the server accepts it:
/// the length of a body announced by `Content-Length` (one value, or the same value
/// repeated), or none at all (an empty body); or the answer to give instead.
///
/// One rule for the receive tap (`RequestHeadMeter`, which reads every header line of a
/// plain connection) and for the request as libwebsockets parsed it (under TLS, where the
/// tap sees only ciphertext).
enum BodyFraming: Equatable {
    /// The body's length; 0 when the head announces none.
    case length(Int)
    /// Answer `status` with `reason` and close the connection.
    case refused(status: Int, reason: String)

    /// `contentLengths`: each `Content-Length` value as written (a value may itself be a
    /// list, `5, 5`). `folded`: a header line continued on the next (obs-fold).
    init(contentLengths: [String], transferEncoding: Bool, folded: Bool) {
        if folded {
            self = .refused(status: 400, reason: "folded header lines (obs-fold) are not accepted (RFC 9112 section 5.2)")
            return
        }
        if transferEncoding {
            self = contentLengths.isEmpty
                ? .refused(status: 501, reason: "Transfer-Encoding is not implemented; send the body with Content-Length")
                : .refused(status: 400, reason: "Content-Length together with Transfer-Encoding is not accepted (RFC 9112 section 6.3)")
            return
        }
        let values = contentLengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = values.first else {
            self = .length(0)
            return
        }
        guard values.allSatisfy({ !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }), let length = Int(first) else {
            self = .refused(status: 400, reason: "Content-Length must be a decimal number of bytes")
            return
        }
        guard values.allSatisfy({ Int($0) == length }) else {
            self = .refused(status: 400, reason: "two different Content-Length values are not accepted (RFC 9112 section 6.3)")
            return
        }
        self = .length(length)
    }
}
