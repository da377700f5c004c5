import Testing
@testable import ReactorHubWebSocketServer

@Suite("Request head sizes for 431 (RequestHeadMeter)")
struct RequestHeadMeterTests {
    func feed(_ meter: inout RequestHeadMeter, _ text: String) -> RequestHeadMeter.Verdict {
        Array(text.utf8).withUnsafeBytes { meter.feed($0) }
    }

    func head(_ headers: String = "", path: String = "/") -> String {
        "GET \(path) HTTP/1.1\r\nHost: a\r\n\(headers)\r\n"
    }

    @Test func headOfExactlyTheLimitIsAcceptedOneMoreIsNot() {
        let request = head()
        var exact = RequestHeadMeter(limit: request.utf8.count)
        #expect(feed(&exact, request) == .withinLimit)
        var short = RequestHeadMeter(limit: request.utf8.count - 1)
        #expect(feed(&short, request) == .overLimit)
    }

    @Test func eachHeadOfAKeptAliveConnectionIsMeasuredOnItsOwn() {
        let request = head()
        var meter = RequestHeadMeter(limit: request.utf8.count)
        for _ in 0..<5 {
            #expect(feed(&meter, request) == .withinLimit)
        }
    }

    @Test func theExtensionsHeaderIsRenamedWhenItsLineIsInOneRead() {
        var meter = RequestHeadMeter(limit: 4096)
        let request = head("sEC-WebSocket-Extensions: permessage-deflate\r\n")
        #expect(feed(&meter, request) == .withinLimit)
        let offset = request.utf8.count - "s: permessage-deflate\r\n\r\n".utf8.count
        #expect(meter.renames.map(\.offset) == [offset])
        #expect(meter.renames.map(\.byte) == [UInt8(ascii: "z")])
        // A line whose start came in an earlier read keeps its name.
        var split = RequestHeadMeter(limit: 4096)
        let cut = request.utf8.count - 30
        #expect(feed(&split, String(request.prefix(cut))) == .withinLimit)
        #expect(feed(&split, String(request.dropFirst(cut))) == .withinLimit)
        #expect(split.renames.isEmpty)
        var other = RequestHeadMeter(limit: 4096)
        #expect(feed(&other, head("Sec-WebSocket-Protocol: x\r\n")) == .withinLimit)
        #expect(other.renames.isEmpty)
    }

    @Test func headSplitAcrossReadsCountsAsOne() {
        var meter = RequestHeadMeter(limit: 40)
        #expect(feed(&meter, "GET / HTTP/1.1\r\nHost: a\r\n") == .withinLimit)
        #expect(feed(&meter, "Cookie: " + String(repeating: "c", count: 20)) == .overLimit)
    }

    @Test func announcedBodyIsNotCountedAsAHead() {
        let post = "POST /admin/revoke HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n"
        var meter = RequestHeadMeter(limit: post.utf8.count)
        #expect(feed(&meter, post + String(repeating: "{", count: 100) + head()) == .withinLimit)
        #expect(feed(&meter, String(repeating: "x", count: post.utf8.count + 1)) == .overLimit)
    }

    @Test func aBodyIsFramedOnlyByOneContentLengthOrNone() {
        let refusals: [(String, Int)] = [
            ("Content-Length: 5\r\nContent-Length: 7\r\n", 400),
            ("Content-Length: 5, 7\r\n", 400),
            ("Content-Length: 5\r\nTransfer-Encoding: chunked\r\n", 400),
            ("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", 400),
            ("Content-Length: -1\r\n", 400),
            ("Content-Length: 0x10\r\n", 400),
            ("X-Long: a\r\n continued\r\n", 400),
            ("X-Long: a\r\n\tcontinued\r\n", 400),
            ("Transfer-Encoding: chunked\r\n", 501),
            ("transfer-encoding: gzip, chunked\r\n", 501),
        ]
        for (headers, status) in refusals {
            var meter = RequestHeadMeter(limit: 1000)
            guard case .refused(status, _) = feed(&meter, "POST / HTTP/1.1\r\nHost: a\r\n\(headers)\r\n") else {
                Issue.record("\(headers.debugDescription) was not refused with \(status)")
                continue
            }
        }
        // The same length twice, as a list or repeated, frames one body.
        for headers in ["Content-Length: 3\r\nContent-Length: 3\r\n", "Content-Length: 3, 3\r\n"] {
            let post = "POST / HTTP/1.1\r\n\(headers)\r\n"
            var meter = RequestHeadMeter(limit: post.utf8.count)
            #expect(feed(&meter, post + "{}}" + head()) == .withinLimit)
        }
    }

    @Test func aHeadWithoutContentLengthHasAnEmptyBody() {
        let post = "POST /x HTTP/1.1\r\nHost: a\r\n\r\n"
        var meter = RequestHeadMeter(limit: post.utf8.count)
        #expect(feed(&meter, post + head()) == .withinLimit)
        #expect(feed(&meter, head() + "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "x", count: 40)) == .overLimit)
    }

    @Test func emptyLinesBeforeTheRequestLineDoNotEndAHead() {
        var meter = RequestHeadMeter(limit: 60)
        #expect(feed(&meter, "\r\n" + head()) == .withinLimit)
        #expect(feed(&meter, "GET / HTTP/1.1\r\n" + String(repeating: "h", count: 60)) == .overLimit)
    }

    /// The verdict does not depend on how the bytes are split into reads: a POST whose
    /// Content-Length line is cut in its name, then a head with a long token in the URL,
    /// fed whole, one byte at a time, and in reads of 7, at limits around the second head.
    @Test func theVerdictIsTheSameWhateverTheReadsAre() {
        let post = "POST /admin/revoke HTTP/1.1\r\nHost: a\r\nContent-Length: 12\r\n\r\n{\"sub\":\"al\"}"
        let upgrade = head("Upgrade: websocket\r\n", path: "/ws?token=" + String(repeating: "t", count: 300))
        let bytes = Array((post + upgrade).utf8)
        for limit in [upgrade.utf8.count - 1, upgrade.utf8.count, upgrade.utf8.count + 1] {
            var verdicts: [RequestHeadMeter.Verdict] = []
            for size in [bytes.count, 1, 7] {
                var meter = RequestHeadMeter(limit: limit)
                var verdict = RequestHeadMeter.Verdict.withinLimit
                for start in stride(from: 0, to: bytes.count, by: size) where verdict == .withinLimit {
                    verdict = bytes[start..<min(start + size, bytes.count)].withUnsafeBytes { meter.feed($0) }
                }
                verdicts.append(verdict)
            }
            let expected: RequestHeadMeter.Verdict = limit < upgrade.utf8.count ? .overLimit : .withinLimit
            #expect(verdicts == [expected, expected, expected], "limit \(limit)")
        }
    }
}
