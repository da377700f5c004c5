@testable import ReactorHubEngine
import ReactorHubJSON
import ReactorHubProtocol
import TestSupport
import Testing

/// The HTTP API (API.md) in process: `Hub.http` answering requests on the in-memory
/// transport, next to WebSocket clients of the same hub. The daemon's tests (Tests/e2e)
/// drive it over real sockets.
@Suite("The HTTP API, in process")
struct HTTPAPITests {
    /// Sends `request` to the hub and waits for its one answer.
    static func answer(_ hub: Hub, _ request: HTTPRequest) async -> HTTPResponse {
        await withCheckedContinuation { continuation in
            hub.http(request) { continuation.resume(returning: $0) }
        }
    }

    static func post(_ hub: Hub, _ path: String, _ body: String) async -> HTTPResponse {
        await answer(hub, HTTPRequest(method: "POST", path: path, body: Array(body.utf8)))
    }

    static func json(_ response: HTTPResponse) throws -> JSONValue {
        try JSONParser().parse(response.body)
    }

    @Test func anHTTPActionIsAckedBeforeSubscribersSeeItsPatch() async throws {
        try await withHub { hub, server in
            let client = try await server.connect()
            let snapshot = try await client.join("doc/shared")
            let response = await Self.post(hub, "/api/v1/reactors/doc/shared/actions", #"{"action":{"type":"set","path":"/a","value":1}}"#)
            #expect(response.status == 200)
            let ack = try Self.json(response)
            #expect(ack == [
                "reactor": "doc/shared", "epoch": snapshot["epoch"] ?? .null, "version": 0, "applied": 1,
            ])
            let patch = try await client.next()
            #expect(patch["type"] == "patch")
            #expect(patch["version"] == 1)
        }
    }

    @Test func anActionIDAnsweredOverWebSocketIsADuplicateOverHTTP() async throws {
        try await withHub { hub, server in
            let client = try await server.connect()
            _ = try await client.join("doc/ids")
            try await client.send(#"{"type":"action","reactor":"doc/ids","action":{"type":"set","path":"/n","value":1},"id":"same","ref":"w"}"#)
            let ack = try await client.next()
            #expect(ack["type"] == "ack")
            _ = try await client.next()  // its patch
            let response = await Self.post(hub, "/api/v1/reactors/doc/ids/actions", #"{"action":{"type":"set","path":"/n","value":1},"id":"same"}"#)
            let repeated = try Self.json(response)
            #expect(repeated["version"] == ack["version"])
            #expect(repeated["applied"] == ack["applied"])
            #expect(repeated["duplicate"] == true)
            await client.expectSilence()  // applied once: no second patch
        }
    }

    @Test func aRefusalKeepsItsCodeAndStatus() async throws {
        try await withHub { hub, _ in
            let unknown = await Self.post(hub, "/api/v1/reactors/counter/x/actions", #"{"action":"jump"}"#)
            #expect(unknown.status == 400)
            let unknownBody = try Self.json(unknown)
            #expect(unknownBody["error"]?["code"] == "unknown_action")
            let kind = await Self.post(hub, "/api/v1/reactors/nope/x/actions", #"{"action":"jump"}"#)
            #expect(kind.status == 404)
            let invalid = await Self.post(hub, "/api/v1/reactors/doc/x/actions", #"{"action":{"type":"remove","path":"/missing"}}"#)
            #expect(invalid.status == 400)
            let invalidBody = try Self.json(invalid)
            #expect(invalidBody["error"]?["code"] == "invalid_action")
        }
    }

    @Test func aBatchIsAnsweredInOrder() async throws {
        try await withHub { hub, _ in
            let body = #"{"actions":[{"reactor":"doc/b","action":{"type":"set","path":"/a","value":1}},{"reactor":"x","action":"a"},{"reactor":"doc/b","action":{"type":"set","path":"/b","value":2}}]}"#
            let results = try Self.json(await Self.post(hub, "/api/v1/actions", body))["results"]
            #expect(results?[0]?["applied"] == 1)
            #expect(results?[1]?["error"]?["code"] == "invalid_reactor")
            #expect(results?[2]?["applied"] == 2)
        }
    }

    @Test func aStateReadWaitsForTheLoadAndItsTagAnswers304() async throws {
        try await withHub { hub, _ in
            let first = await Self.answer(hub, HTTPRequest(method: "GET", path: "/api/v1/reactors/counter/read"))
            #expect(first.status == 200)
            let tag = try #require(first.headers.first { $0.name == "ETag" }?.value)
            let state = try Self.json(first)
            let epoch = try #require(state["epoch"]?.stringValue)
            #expect(tag == "\"\(epoch):0\"")
            #expect(state["state"] == ["value": 0, "isLoading": false])
            let again = await Self.answer(hub, HTTPRequest(method: "GET", path: "/api/v1/reactors/counter/read", headers: ["if-none-match": tag]))
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            #expect(again.headers == [HTTPField("ETag", tag)])
        }
    }

    @Test func aCrossSiteRequestIsRefusedBeforeTheInstanceExists() async throws {
        try await withHub { hub, _ in
            let refused = await Self.answer(hub, HTTPRequest(
                method: "POST", path: "/api/v1/reactors/doc/target/actions", body: Array(#"{"action":{"type":"set","path":"/a","value":1}}"#.utf8),
                headers: ["origin": "https://evil.example"], originAllowed: false
            ))
            #expect(refused.status == 403)
            #expect(hub.residentInstances == [])
        }
    }

    @Test func theEventStreamAnswerCarriesItsReactorAndResumePoint() async throws {
        try await withHub { hub, _ in
            let opening = await Self.answer(hub, HTTPRequest(
                method: "GET", path: "/api/v1/reactors/doc/streamed/events", headers: ["last-event-id": "e1:7"]
            ))
            #expect(opening.status == 200)
            #expect(opening.contentType == "text/event-stream")
            #expect(opening.stream?.reactor == ReactorAddress("doc/streamed"))
            #expect(opening.stream?.lastEventID == "e1:7")
        }
    }

    @Test(arguments: [
        ("e3f1:41", "e3f1", 41), ("a:b:2", "a:b", 2), ("e:0", "e", 0),
    ])
    func lastEventIDIsEpochColonVersion(_ text: String, _ epoch: String, _ version: Int) {
        #expect(Hub.resumePoint(lastEventID: text) == ClientMessage.ResumePoint(epoch: epoch, version: version))
    }

    @Test(arguments: ["", "e", ":1", "e:", "e:-1", "e:x"])
    func anythingElseIsNoResumePoint(_ text: String) {
        #expect(Hub.resumePoint(lastEventID: text) == nil)
    }

    @Test func entityTagsMatchListsWeakTagsAndTheStar() {
        #expect(Hub.entityTags(#""a:1""#, match: #""a:1""#))
        #expect(Hub.entityTags(#"W/"a:1""#, match: #""a:1""#))
        #expect(Hub.entityTags(#""x", "a:1""#, match: #""a:1""#))
        #expect(Hub.entityTags("*", match: #""a:1""#))
        #expect(!Hub.entityTags(#""a:2""#, match: #""a:1""#))
    }
}

/// The endpoints of API.md as paths, and the statuses of the error codes.
@Suite("API paths and statuses")
struct APIRoutingTests {
    @Test func pathsNameTheirEndpoints() throws {
        let counter = try #require(ReactorAddress("counter/a.b"))
        let cases: [(String, APIEndpoint)] = [
            ("/api/v1/kinds", .kinds), ("/api/v1/openapi.json", .openAPI), ("/api/v1/actions", .batch),
            ("/api/v1/reactors/counter/a.b", .state(counter)), ("/api/v1/reactors/counter/a%2Eb", .state(counter)),
            ("/api/v1/reactors/counter/a.b/actions", .actions(counter)), ("/api/v1/reactors/counter/a.b/patches", .patches(counter)),
            ("/api/v1/reactors/counter/a.b/events", .events(counter)),
        ]
        for (path, endpoint) in cases {
            #expect(try APIEndpoint.parse(path).get() == endpoint, "\(path)")
        }
    }

    @Test(arguments: [
        ("/api/v1/", "bad_request"), ("/api/v1/kind", "bad_request"), ("/api/v1/reactors/counter/a/other", "bad_request"),
        ("/api/v1/reactors/counter", "invalid_reactor"), ("/api/v1/reactors/Counter/a", "invalid_reactor"),
        ("/api/v1/reactors/counter/a%20b", "invalid_reactor"), ("/api/v1/reactors/counter/a/b/c/d", "invalid_reactor"),
    ])
    func otherPathsAre404(_ path: String, _ code: String) {
        guard case .failure(let error) = APIEndpoint.parse(path) else { return #expect(Bool(false), "\(path) parsed") }
        #expect(error.status == 404)
        #expect(error.error.code.rawValue == code)
    }

    @Test func eachCodeHasTheStatusOfAPIMD() {
        let statuses: [(ProtocolError.Code, Int, Int)] = [
            (.badJSON, 400, 400), (.badRequest, 400, 400), (.invalidAction, 400, 400), (.unknownAction, 400, 400),
            (.unknownReactor, 404, 400), (.invalidReactor, 404, 400), (.unauthenticated, 401, 401), (.forbidden, 403, 403),
            (.rateLimited, 429, 429), (.overloaded, 503, 503), (.internal, 500, 500),
        ]
        for (code, inPath, inBatch) in statuses {
            #expect(APIError.status(of: code, inPath: true) == inPath, "\(code)")
            #expect(APIError.status(of: code, inPath: false) == inBatch, "\(code)")
        }
        #expect(APIError(ProtocolError(.unauthenticated, "x")).headers == [HTTPField("WWW-Authenticate", "Bearer")])
        #expect(APIError(ProtocolError(.rateLimited, "x"), retryAfter: 3).headers == [HTTPField("Retry-After", "3")])
        #expect(APIError(ProtocolError(.overloaded, "x"), retryAfter: 0).headers == [HTTPField("Retry-After", "1")])
    }

    @Test func theBucketSaysWhenTheNextTokenComes() {
        let start = ContinuousClock.now
        var bucket = TokenBucket(ratePerSecond: 2, burst: 1, now: start)
        let first = bucket.take(now: start)
        let second = bucket.take(now: start)
        let wait = bucket.secondsUntilNext(now: start)
        #expect(first && !second && wait == 1)
        #expect(!bucket.isFull(now: start + .milliseconds(100)))
        #expect(bucket.isFull(now: start + .seconds(1)))
        var slow = TokenBucket(ratePerSecond: 1, burst: 1, now: start)
        _ = slow.take(now: start)
        let slowWait = slow.secondsUntilNext(now: start + .milliseconds(100))
        #expect(slowWait == 1)
        var tenth = TokenBucket(ratePerSecond: 1, burst: 1, now: start)
        _ = tenth.take(now: start)
        let tenthWait = tenth.secondsUntilNext(now: start + .milliseconds(900))
        #expect(tenthWait == 1)
    }
}
