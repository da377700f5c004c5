import Testing
@testable import ReactorHubWebSocketServer

/// The rule both the receive tap and the TLS path apply to a request's body framing.
@Suite("Body framing (RFC 9112 section 6.3)")
struct BodyFramingTests {
    @Test func oneLengthOrTheSameLengthRepeatedFramesTheBody() {
        #expect(BodyFraming(contentLengths: [], transferEncoding: false, folded: false) == .length(0))
        #expect(BodyFraming(contentLengths: ["12"], transferEncoding: false, folded: false) == .length(12))
        #expect(BodyFraming(contentLengths: ["12", " 12 "], transferEncoding: false, folded: false) == .length(12))
        #expect(BodyFraming(contentLengths: ["12,12"], transferEncoding: false, folded: false) == .length(12))
    }

    @Test func everythingElseIsRefusedWithItsStatus() {
        let cases: [(BodyFraming, Int)] = [
            (BodyFraming(contentLengths: ["1", "2"], transferEncoding: false, folded: false), 400),
            (BodyFraming(contentLengths: ["1,2"], transferEncoding: false, folded: false), 400),
            (BodyFraming(contentLengths: [""], transferEncoding: false, folded: false), 400),
            (BodyFraming(contentLengths: ["+1"], transferEncoding: false, folded: false), 400),
            (BodyFraming(contentLengths: ["99999999999999999999999"], transferEncoding: false, folded: false), 400),
            (BodyFraming(contentLengths: ["1"], transferEncoding: true, folded: false), 400),
            (BodyFraming(contentLengths: [], transferEncoding: false, folded: true), 400),
            (BodyFraming(contentLengths: [], transferEncoding: true, folded: false), 501),
        ]
        for (framing, status) in cases {
            guard case .refused(status, let reason) = framing else {
                Issue.record("\(framing) is not a \(status)")
                continue
            }
            #expect(!reason.isEmpty)
        }
    }
}
