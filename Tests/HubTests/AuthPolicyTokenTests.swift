import Testing
@testable import ReactorHubEngine

@Suite("The token of an upgrade")
struct AuthPolicyTokenTests {
    func token(_ authorization: String?, query: [String: String] = [:]) -> String? {
        AuthPolicy.token(query: query, authorization: authorization)
    }

    @Test func theQueryComesFirstThenTheBearerHeader() {
        #expect(token("Bearer header-token", query: ["token": "query-token"]) == "query-token")
        #expect(token("Bearer header-token", query: ["token": ""]) == "header-token")
        #expect(token(nil, query: ["token": "query-token"]) == "query-token")
        #expect(token(nil) == nil)
    }

    @Test func theSchemeIsBearerInAnyCaseFollowedBySpaces() {
        #expect(token("Bearer a.b.c") == "a.b.c")
        #expect(token("bearer a.b.c") == "a.b.c")
        #expect(token("BEARER a.b.c") == "a.b.c")
        #expect(token("Bearer   a.b.c") == "a.b.c")
        #expect(token("Bearer a.b.c \t ") == "a.b.c")
    }

    @Test func anythingElseCarriesNoToken() {
        #expect(token("Basic YWxpY2U6c2VjcmV0") == nil)
        #expect(token("Bearer") == nil)
        #expect(token("Bearer ") == nil)
        #expect(token("Bearer    ") == nil)
        #expect(token("Bearera.b.c") == nil)
        #expect(token("Bearer\ta.b.c") == nil)
        #expect(token("Bearex a.b.c") == nil)
        #expect(token("") == nil)
        #expect(token("Béarer a.b.c") == nil)
    }
}
