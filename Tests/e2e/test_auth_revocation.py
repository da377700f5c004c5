"""Revocation, end to end (PROTOCOL.md "Revocation"): `POST /admin/revoke` with the admin
bearer closes every connection of the user with 1008 `revoked` and answers the exact
count; others are untouched; the user's tokens issued before (or without `iat`) are then
refused at the upgrade (401 `revoked`) and in `auth` (`unauthenticated`); a token issued
after the revocation works. Without the right bearer: 401; without `admin.token`: 404."""
import json
import time

from auth_support import ADMIN_TOKEN, Client, auth_config, http, read_state, refused, token

ADMIN_REFUSAL = "the admin endpoints need Authorization: Bearer ADMIN_TOKEN\n"


def revoke(hub, sub, bearer=ADMIN_TOKEN):
    return http("POST", f"{hub.http_url}/admin/revoke", {"sub": sub}, bearer=bearer)


def admin_hub(daemon_factory):
    return daemon_factory(auth_config(admin={"token": ADMIN_TOKEN}))


def test_revoke_closes_every_connection_of_the_user_and_counts_them(daemon_factory):
    hub = admin_hub(daemon_factory)
    old = token("alice", read=["doc/*"], act=["doc/*"])
    alice_by_query = Client(hub.url, token=old)
    alice_by_header = Client(hub.url, bearer=old)
    alice_by_message = Client(hub.url)
    assert alice_by_message.auth(old)["user"] == "alice"
    bob = Client(hub.url, token=token("bob"))
    waiting = Client(hub.url)  # not authenticated yet: no user, not closed
    for client in (alice_by_query, bob):
        client.join("doc/revoke")
    alice_by_query.act("doc/revoke", {"type": "set", "path": "/by", "value": "alice"})

    assert revoke(hub, "alice") == (200, '{"closed":3}')
    for client in (alice_by_query, alice_by_header, alice_by_message):
        assert client.closed() == (1008, "revoked")
    assert bob.ping()["type"] == "pong" and waiting.ping()["type"] == "pong"
    assert bob.act("doc/revoke", {"type": "set", "path": "/by", "value": "bob"})["version"] == 1
    assert read_state(hub.url, "doc/revoke") == (2, {"by": "bob"})
    # Nothing of alice's is left to close.
    assert revoke(hub, "alice") == (200, '{"closed":0}')
    assert revoke(hub, "nobody-here") == (200, '{"closed":0}')


def test_after_revocation_older_tokens_are_refused_and_newer_ones_work(daemon_factory):
    hub = admin_hub(daemon_factory)
    before = token("alice", iat=int(time.time()) - 5)
    without_iat = token("alice", iat=None)
    assert Client(hub.url, token=without_iat).hello["user"] == "alice"  # fine until revoked
    assert revoke(hub, "alice") == (200, '{"closed":1}')
    for text in (before, without_iat):
        assert refused(hub.url, token=text) == (401, "revoked\n")
        assert refused(hub.url, bearer=text) == (401, "revoked\n")
        waiting = Client(hub.url)
        error = waiting.auth(text)
        assert (error["code"], "(revoked)" in error["message"]) == ("unauthenticated", True)
        assert waiting.join("doc/x")["code"] == "unauthenticated" and waiting.ping()["type"] == "pong"
    # A token issued after the revocation (iat is in whole seconds: the next one) works.
    after = token("alice", iat=int(time.time()) + 1)
    fresh = Client(hub.url, token=after)
    assert fresh.hello["user"] == "alice" and fresh.join("doc/x")["type"] == "snapshot"
    other = Client(hub.url)
    assert other.auth(after)["user"] == "alice"
    # Other users' old tokens are not affected.
    assert Client(hub.url, token=token("bob", iat=int(time.time()) - 5)).hello["user"] == "bob"
    # Revoking again closes the two new connections, and refuses `after` too.
    assert revoke(hub, "alice") == (200, '{"closed":2}')
    assert fresh.closed() == (1008, "revoked") and other.closed() == (1008, "revoked")


def test_the_admin_endpoint_needs_the_right_bearer(daemon_factory):
    hub = admin_hub(daemon_factory)
    alice = Client(hub.url, token=token("alice"))
    url = f"{hub.http_url}/admin/revoke"
    assert http("POST", url, {"sub": "alice"}) == (401, ADMIN_REFUSAL)
    assert http("POST", url, {"sub": "alice"}, bearer="wrong-token") == (401, ADMIN_REFUSAL)
    assert http("POST", url, {"sub": "alice"}, bearer=ADMIN_TOKEN[:-1]) == (401, ADMIN_REFUSAL)
    assert http("POST", url, {"sub": "alice"}, bearer=ADMIN_TOKEN + "x") == (401, ADMIN_REFUSAL)
    assert alice.ping()["type"] == "pong"  # nothing was revoked
    assert Client(hub.url, token=token("alice", iat=int(time.time()) - 5)).hello["user"] == "alice"
    assert http("POST", url, b"not json", bearer=ADMIN_TOKEN) == (400, 'expected a JSON body {"sub":"USER"}\n')
    assert http("POST", url, {"user": "alice"}, bearer=ADMIN_TOKEN) == (400, 'expected a JSON body {"sub":"USER"}\n')
    assert http("GET", url, bearer=ADMIN_TOKEN) == (404, "no admin endpoint GET /admin/revoke; see docs/operations.md\n")
    assert alice.ping()["type"] == "pong"


def test_without_admin_token_the_admin_endpoints_are_not_found(daemon_factory):
    hub = daemon_factory(auth_config())
    alice = Client(hub.url, token=token("alice"))
    status, body = revoke(hub, "alice")
    assert status == 404 and body.startswith("not found: /admin/revoke")
    assert revoke(hub, "alice", bearer=None)[0] == 404
    assert alice.ping()["type"] == "pong"


def test_a_composed_and_a_decomposed_subject_are_one_user(daemon_factory):
    """Issue 30: `josé` written with U+00E9 and with e + U+0301 is one user (NFC), for the
    revocation, `hello`, presence and the admin listing's counts by user."""
    hub = admin_hub(daemon_factory)
    composed, decomposed = "jos\u00e9", "jose\u0301"
    first = Client(hub.url, token=token(decomposed, iat=int(time.time()) - 5))
    second = Client(hub.url, token=token(composed, iat=int(time.time()) - 5))
    assert first.hello["user"] == second.hello["user"] == composed
    listing = http("GET", f"{hub.http_url}/admin/connections", bearer=ADMIN_TOKEN)
    assert listing[0] == 200 and json.loads(listing[1])["byUser"] == {composed: 2}
    # Revoking one spelling closes both connections and refuses both spellings' older tokens.
    assert revoke(hub, composed) == (200, '{"closed":2}')
    assert first.closed() == (1008, "revoked") and second.closed() == (1008, "revoked")
    for spelling in (composed, decomposed):
        assert refused(hub.url, token=token(spelling, iat=int(time.time()) - 5)) == (401, "revoked\n")
