import Testing
@testable import Transport

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

    @Test func afterAChunkedHeadTheConnectionIsNoLongerMeasured() {
        var meter = RequestHeadMeter(limit: 80)
        #expect(feed(&meter, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") == .withinLimit)
        #expect(feed(&meter, String(repeating: "z", count: 500)) == .withinLimit)
    }

    @Test func emptyLinesBeforeTheRequestLineDoNotEndAHead() {
        var meter = RequestHeadMeter(limit: 60)
        #expect(feed(&meter, "\r\n" + head()) == .withinLimit)
        #expect(feed(&meter, "GET / HTTP/1.1\r\n" + String(repeating: "h", count: 60)) == .overLimit)
    }
}
