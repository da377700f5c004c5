"""Identity and Origin on the HTTP API (shared/API.md "Common rules"): the same JWTs as the
WebSocket in `Authorization: Bearer` (and `?token=` for the event stream), the same rights
per reactor, revocation, and cross-site requests refused with 403 before anything is read
or changed. Every refusal is followed by proof that nothing changed: the state read with a
token that may read it, and no instance created (the admin listing)."""
import json
import time

import pytest

from api_support import Api, EventStream, call
from auth_support import ADMIN_TOKEN, auth_config, raw_token, token
from conftest import base_config

LISTED = "https://app.example.com"


@pytest.fixture
def hub(daemon_factory):
    return daemon_factory(auth_config(admin={"token": ADMIN_TOKEN}, security={"allowedOrigins": [LISTED]}))


def bearer(text: str) -> dict:
    return {"Authorization": f"Bearer {text}"}


def reader_state(hub, address: str) -> dict:
    reply = call(hub, "GET", f"/api/v1/reactors/{address}", headers=bearer(token("observer")))
    assert reply.status == 200, reply.body
    return reply.json


def resident(hub) -> list[str]:
    reply = call(hub, "GET", "/admin/instances", headers=bearer(ADMIN_TOKEN))
    return sorted(f"{each['kind']}/{each['id']}" for each in reply.json["instances"])


def test_without_a_token_every_reactor_endpoint_is_401_with_www_authenticate(hub):
    for method, path, body in [
        ("GET", "/api/v1/reactors/todo/locked", None),
        ("POST", "/api/v1/reactors/todo/locked/actions", {"action": {"type": "add", "title": "x"}}),
        ("POST", "/api/v1/actions", {"actions": [{"reactor": "todo/locked", "action": "clearCompleted"}]}),
        ("GET", "/api/v1/reactors/todo/locked/patches?since=0&epoch=e", None),
        ("GET", "/api/v1/reactors/todo/locked/events", None),
    ]:
        reply = call(hub, method, path, body)
        assert (reply.status, reply.code, reply.headers["www-authenticate"]) == (401, "unauthenticated", "Bearer"), path
    assert resident(hub) == []
    # The kinds and the document describe the server: no token needed (as hello).
    assert call(hub, "GET", "/api/v1/kinds").status == 200
    assert call(hub, "GET", "/api/v1/openapi.json").status == 200


@pytest.mark.parametrize("reason, make", [
    ("expired", lambda: token("alice", ttl=-120)),
    ("bad signature", lambda: token("alice", key="another-secret-0123456789abcdef0123456789abcdef")),
    ("malformed", lambda: "not.a.jwt"),
    ("algorithm", lambda: raw_token('{"alg":"none","typ":"JWT"}', json.dumps({"sub": "alice", "exp": int(time.time()) + 60}))),
], ids=["expired", "bad-signature", "malformed", "alg-none"])
def test_a_refused_token_is_401_naming_the_reason_and_changes_nothing(hub, reason, make):
    reader_state(hub, "todo/tokens")
    before = reader_state(hub, "todo/tokens")
    reply = call(hub, "POST", "/api/v1/reactors/todo/tokens/actions", {"action": {"type": "add", "title": "x"}}, headers=bearer(make()))
    assert (reply.status, reply.code) == (401, "unauthenticated")
    assert reason in reply.json["error"]["message"]
    assert reply.headers["www-authenticate"] == "Bearer"
    # A sent token that does not verify is refused on the kinds too.
    assert call(hub, "GET", "/api/v1/kinds", headers=bearer(make())).status == 401
    assert reader_state(hub, "todo/tokens") == before


def test_rights_are_per_reactor_and_act_does_not_need_read(hub):
    reader = token("rita", read=["todo/*"], act=[])
    actor = token("adam", read=[], act=["todo/shared"])
    before = reader_state(hub, "todo/shared")
    forbidden = call(hub, "POST", "/api/v1/reactors/todo/shared/actions", {"action": {"type": "add", "title": "x"}}, headers=bearer(reader))
    assert (forbidden.status, forbidden.code) == (403, "forbidden")
    assert "todo/shared" in forbidden.json["error"]["message"] and "act" in forbidden.json["error"]["message"]
    assert reader_state(hub, "todo/shared") == before
    assert call(hub, "GET", "/api/v1/reactors/todo/shared", headers=bearer(actor)).status == 403
    assert call(hub, "GET", "/api/v1/reactors/todo/shared/events", headers=bearer(actor)).status == 403
    acted = call(hub, "POST", "/api/v1/reactors/todo/shared/actions", {"action": {"type": "add", "title": "by adam"}}, headers=bearer(actor))
    assert acted.status == 200 and acted.json["applied"] == before["version"] + 1
    elsewhere = call(hub, "POST", "/api/v1/reactors/todo/other/actions", {"action": "clearCompleted"}, headers=bearer(actor))
    assert elsewhere.status == 403
    assert "todo/other" not in resident(hub)
    batch = call(hub, "POST", "/api/v1/actions", {"actions": [
        {"reactor": "todo/shared", "action": {"type": "add", "title": "second"}},
        {"reactor": "todo/other", "action": "clearCompleted"},
    ]}, headers=bearer(actor))
    assert [each.get("error", {}).get("code") for each in batch.json["results"]] == [None, "forbidden"]
    assert [item["title"] for item in reader_state(hub, "todo/shared")["state"]["items"]] == ["by adam", "second"]


def test_the_sub_placeholder_gives_each_user_a_reactor_of_their_own(hub):
    own = token("alice", read=["doc/notes-{sub}"], act=["doc/notes-{sub}"])
    assert call(hub, "POST", "/api/v1/reactors/doc/notes-alice/actions", {"action": {"type": "set", "path": "/a", "value": 1}}, headers=bearer(own)).status == 200
    assert call(hub, "POST", "/api/v1/reactors/doc/notes-bob/actions", {"action": {"type": "set", "path": "/a", "value": 1}}, headers=bearer(own)).status == 403


def test_a_revoked_user_is_refused_with_revoked(hub):
    alice = token("alice")
    assert call(hub, "GET", "/api/v1/reactors/todo/revoked", headers=bearer(alice)).status == 200
    revoked = call(hub, "POST", "/admin/revoke", {"sub": "alice"}, headers=bearer(ADMIN_TOKEN))
    assert revoked.status == 200
    reply = call(hub, "POST", "/api/v1/reactors/todo/revoked/actions", {"action": {"type": "add", "title": "x"}}, headers=bearer(alice))
    assert (reply.status, reply.code) == (401, "unauthenticated") and "revoked" in reply.json["error"]["message"]
    assert reader_state(hub, "todo/revoked")["version"] == 0


def test_revocation_ends_the_user_s_event_streams(hub):
    stream = EventStream(hub, "/api/v1/reactors/todo/streamed/events", headers=bearer(token("alice")))
    try:
        assert stream.status == 200 and stream.next().name == "snapshot"
        assert call(hub, "POST", "/admin/revoke", {"sub": "alice"}, headers=bearer(ADMIN_TOKEN)).json == {"closed": 1}
        assert stream.ended()
    finally:
        stream.close()


def test_the_event_stream_takes_the_token_in_the_query_and_ends_when_it_expires(daemon_factory):
    hub = daemon_factory(auth_config({"leewaySeconds": 0}))
    short = token("alice", ttl=2)
    stream = EventStream(hub, f"/api/v1/reactors/todo/expiring/events?token={short}")
    try:
        assert stream.status == 200 and stream.next().name == "snapshot"
        assert stream.ended(timeout=10)
    finally:
        stream.close()
    refused = EventStream(hub, f"/api/v1/reactors/todo/expiring/events?token={short}")
    assert refused.status == 401 and json.loads(refused.body())["error"]["code"] == "unauthenticated"
    # Only the event stream reads ?token=: elsewhere it counts as no token.
    assert call(hub, "GET", f"/api/v1/reactors/todo/expiring?token={token('alice')}").status == 401


def test_anonymous_requests_get_the_anonymous_rights_when_auth_is_not_required(daemon_factory):
    hub = daemon_factory(auth_config({"required": False, "anonymousRights": {"read": ["todo/*"], "act": ["todo/public"]}}))
    assert call(hub, "GET", "/api/v1/reactors/todo/private").status == 200
    assert call(hub, "POST", "/api/v1/reactors/todo/public/actions", {"action": {"type": "add", "title": "hi"}}).status == 200
    denied = call(hub, "POST", "/api/v1/reactors/todo/private/actions", {"action": {"type": "add", "title": "hi"}})
    assert (denied.status, denied.code) == (403, "forbidden")
    assert call(hub, "GET", "/api/v1/reactors/doc/x").status == 403


def test_the_http_action_rate_is_per_user(daemon_factory):
    # alice spends her budget; bob has his own.
    hub = daemon_factory(auth_config(limits={"actionsPerSecond": 1, "actionBurst": 2}))
    alice, bob = Api(hub, bearer=token("alice")), Api(hub, bearer=token("bob"))
    try:
        assert [alice.act("todo/rated", {"type": "add", "title": str(n)}).status for n in range(2)] == [200, 200]
        assert alice.act("todo/rated", {"type": "add", "title": "over"}).status == 429
        assert bob.act("todo/rated", {"type": "add", "title": "bob"}).status == 200
    finally:
        alice.close()
        bob.close()


# -- Origin -------------------------------------------------------------------------------

@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://127.0.0.1:1"], ids=["evil", "null", "other-port"])
def test_a_cross_site_request_is_403_and_reads_and_changes_nothing(hub, origin):
    alice = bearer(token("alice"))
    action = {"action": {"type": "add", "title": "from a page on another site"}}
    for method, path, body in [
        ("POST", "/api/v1/reactors/todo/target/actions", action),
        ("POST", "/api/v1/actions", {"actions": [{"reactor": "todo/target", **action}]}),
        ("GET", "/api/v1/reactors/todo/target", None),
        ("GET", "/api/v1/reactors/todo/target/events", None),
        ("GET", "/api/v1/kinds", None),
    ]:
        reply = call(hub, method, path, body, headers={**alice, "Origin": origin})
        assert (reply.status, reply.code) == (403, "forbidden"), path
        assert "access-control-allow-origin" not in reply.headers
    assert resident(hub) == []  # not even created
    assert reader_state(hub, "todo/target")["version"] == 0


def test_the_same_origin_and_a_listed_origin_are_served_and_only_the_listed_one_gets_cors_headers(hub):
    alice = bearer(token("alice"))
    same = call(hub, "GET", "/api/v1/reactors/todo/cors", headers={**alice, "Origin": f"http://127.0.0.1:{hub.port}"})
    assert same.status == 200 and "access-control-allow-origin" not in same.headers
    listed = call(hub, "POST", "/api/v1/reactors/todo/cors/actions", {"action": {"type": "add", "title": "x"}},
                  headers={**alice, "Origin": LISTED})
    assert listed.status == 200
    assert listed.headers["access-control-allow-origin"] == LISTED
    assert "ETag" in listed.headers["access-control-expose-headers"]
    preflight = call(hub, "OPTIONS", "/api/v1/reactors/todo/cors/actions",
                     headers={"Origin": LISTED, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"})
    assert preflight.status == 204
    assert preflight.headers["access-control-allow-origin"] == LISTED
    assert preflight.headers["access-control-allow-methods"] == "POST"
    assert "Authorization" in preflight.headers["access-control-allow-headers"]
    evil = call(hub, "OPTIONS", "/api/v1/reactors/todo/cors/actions", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
    assert evil.status == 403 and "access-control-allow-origin" not in evil.headers
    assert call(hub, "OPTIONS", "/api/v1/reactors/todo/cors/actions").status == 405


def test_without_an_auth_section_the_origin_rule_still_holds(daemon_factory):
    hub = daemon_factory(base_config())
    reply = call(hub, "POST", "/api/v1/reactors/todo/open/actions", {"action": {"type": "add", "title": "x"}}, headers={"Origin": "https://evil.example"})
    assert reply.status == 403
    assert call(hub, "GET", "/api/v1/reactors/todo/open").json["version"] == 0
