"""A connection's identity and rights, end to end (PROTOCOL.md "Identity and rights"): what
`hello` says, what is served before a valid `auth`, the auth timeout, anonymous rights, and
`forbidden` for joins and actions outside the rights (each followed by a reader that sees
nothing changed and a ping on the refused connection)."""
import time

from auth_support import Client, auth_config, read_state, token


def test_hello_says_auth_required_without_a_token_and_names_the_user_with_one(daemon_factory):
    hub = daemon_factory(auth_config())
    anonymous = Client(hub.url)
    assert anonymous.hello["auth"] == "required" and "user" not in anonymous.hello
    by_query = Client(hub.url, token=token("alice"))
    by_header = Client(hub.url, bearer=token("alice"))
    for client in (by_query, by_header):
        assert client.hello["user"] == "alice" and "auth" not in client.hello
        assert client.subprotocol == "reactorhub.v1"
    assert len({anonymous.hello["session"], by_query.hello["session"], by_header.hello["session"]}) == 3


def test_without_an_auth_section_hello_has_neither_auth_nor_user(daemon):
    client = Client(daemon.url, token=token("alice"))  # a token is ignored: everything is open
    assert "auth" not in client.hello and "user" not in client.hello
    assert client.join("doc/open")["type"] == "snapshot"
    assert client.act("doc/open", {"type": "set", "path": "/a", "value": 1})["type"] == "ack"
    error = client.auth(token("alice"))
    assert (error["type"], error["code"]) == ("error", "bad_request")


def test_before_a_valid_auth_only_auth_and_ping_are_served(daemon_factory):
    hub = daemon_factory(auth_config())
    client = Client(hub.url)
    refusals = [
        client.join("doc/gate"),
        client.request({"type": "join", "reactor": "doc/gate", "since": {"epoch": "e", "version": 0}}),
        client.act("doc/gate", {"type": "set", "path": "/a", "value": 1}),
        client.request({"type": "leave", "reactor": "doc/gate"}),
    ]
    assert [(r["type"], r["code"]) for r in refusals] == [("error", "unauthenticated")] * 4
    assert refusals[0]["message"] == (
        'authenticate first: send {"type":"auth","token":"…"} (only auth and ping are served before)')
    assert client.ping()["type"] == "pong"
    authed = client.auth(token("alice", ttl=600))
    assert (authed["type"], authed["user"]) == ("authed", "alice")
    assert abs(authed["expires"] - (time.time() + 600)) < 30
    assert client.join("doc/gate")["type"] == "snapshot"
    assert client.act("doc/gate", {"type": "set", "path": "/a", "value": 1})["type"] == "ack"
    assert client.next_unsolicited(lambda f: f["type"] == "patch")["version"] == 1
    assert read_state(hub.url, "doc/gate")[1] == {"a": 1}


# The timeouts leave room (2 s) for what the test sends first on a busy machine.
def test_no_valid_auth_within_the_timeout_closes_with_1008(daemon_factory):
    hub = daemon_factory(auth_config({"timeoutMs": 2000}))
    idle = Client(hub.url)
    trying = Client(hub.url)
    assert trying.auth("garbage")["code"] == "unauthenticated"  # a refused token does not stop the clock
    assert idle.closed() == (1008, "authentication timeout")
    assert trying.closed() == (1008, "authentication timeout")
    assert idle.unsolicited == [] and trying.unsolicited == []


def test_a_connection_that_authenticated_in_time_outlives_the_timeout(daemon_factory):
    hub = daemon_factory(auth_config({"timeoutMs": 2000}))
    late = Client(hub.url)
    assert late.auth(token("alice"))["type"] == "authed"
    at_upgrade = Client(hub.url, token=token("bob"))
    waiting = Client(hub.url)
    assert waiting.closed() == (1008, "authentication timeout")  # the timeout has fired by now
    assert late.ping()["type"] == "pong" and at_upgrade.ping()["type"] == "pong"


def test_with_auth_not_required_a_connection_without_token_has_the_anonymous_rights(daemon_factory):
    hub = daemon_factory(auth_config({"required": False, "timeoutMs": 200,
                                      "anonymousRights": {"read": ["counter/*", "doc/public"], "act": ["doc/public"]}}))
    guest = Client(hub.url)
    assert guest.hello["user"] is None and "auth" not in guest.hello
    assert guest.join("counter/lobby")["type"] == "snapshot"
    refused = guest.act("counter/lobby", "increase")
    assert (refused["code"], refused["message"]) == (
        "forbidden", "counter/lobby needs the 'act' right; an anonymous connection's act patterns: doc/public")
    refused = guest.join("doc/private")
    assert (refused["code"], refused["message"]) == (
        "forbidden", "doc/private needs the 'read' right; an anonymous connection's read patterns: counter/*, doc/public")
    assert guest.join("doc/public")["type"] == "snapshot"
    assert guest.act("doc/public", {"type": "set", "path": "/by", "value": "guest"})["type"] == "ack"
    assert read_state(hub.url, "counter/lobby") == (0, {"value": 0, "isLoading": False})
    assert read_state(hub.url, "doc/private") == (0, {})
    # No auth timeout for an anonymous connection; it can still sign in.
    time.sleep(0.4)
    assert guest.ping()["type"] == "pong"
    assert guest.auth(token("alice", read=["doc/*"], act=[]))["user"] == "alice"
    assert guest.join("doc/private")["type"] == "snapshot"


def test_a_join_outside_the_read_rights_is_forbidden_and_changes_nothing(daemon_factory):
    hub = daemon_factory(auth_config())
    owner = Client(hub.url, token=token("owner", read=["doc/*"], act=["doc/*"]))
    owner.join("doc/bob-plans")
    owner.act("doc/bob-plans", {"type": "set", "path": "/secret", "value": 42})
    alice = Client(hub.url, token=token("alice", read=["doc/alice-*", "todo/team"], act=["doc/alice-*"]))
    refused = alice.join("doc/bob-plans")
    assert (refused["type"], refused["code"]) == ("error", "forbidden")
    assert refused["message"] == "doc/bob-plans needs the 'read' right; this token's read patterns: doc/alice-*, todo/team"
    assert alice.ping()["type"] == "pong"
    assert alice.unsolicited == []  # no snapshot, no patch of a reactor it may not read
    owner.act("doc/bob-plans", {"type": "set", "path": "/secret", "value": 43})
    assert read_state(hub.url, "doc/bob-plans") == (2, {"secret": 43})
    assert alice.ping()["type"] == "pong" and alice.unsolicited == []
    assert alice.join("doc/alice-notes")["type"] == "snapshot"


def test_an_action_outside_the_act_rights_is_forbidden_and_changes_nothing(daemon_factory):
    hub = daemon_factory(auth_config())
    reader = Client(hub.url, token=token("reader", read=["todo/*", "doc/*"], act=["doc/*"]))
    assert reader.join("todo/team")["version"] == 0
    refused = reader.act("todo/team", {"type": "add", "title": "sneaky"})
    assert (refused["type"], refused["code"]) == ("error", "forbidden")
    assert refused["message"] == "todo/team needs the 'act' right; this token's act patterns: doc/*"
    assert reader.ping()["type"] == "pong"
    assert read_state(hub.url, "todo/team") == (0, {"items": []})
    assert [f for f in reader.unsolicited if f["type"] == "patch"] == []
    nobody = Client(hub.url, token=token("nobody", read=["todo/*"], act=None))  # rh without act
    nobody.join("todo/team")
    assert nobody.act("todo/team", "clearCompleted")["message"] == (
        "todo/team needs the 'act' right; this token's act patterns: none")
    no_rh = Client(hub.url, token=token("plain", read=None, act=None))  # no rh at all: no rights
    assert no_rh.join("todo/team")["message"] == "todo/team needs the 'read' right; this token's read patterns: none"


def test_sub_patterns_give_each_user_a_reactor_of_their_own(daemon_factory):
    hub = daemon_factory(auth_config())
    rights = dict(read=["doc/notes-{sub}"], act=["doc/notes-{sub}"])
    alice = Client(hub.url, token=token("alice", **rights))
    bob = Client(hub.url, token=token("bob", **rights))
    assert alice.join("doc/notes-alice")["type"] == "snapshot"
    assert alice.act("doc/notes-alice", {"type": "set", "path": "/t", "value": "mine"})["type"] == "ack"
    refused = bob.join("doc/notes-alice")
    assert (refused["code"], refused["message"]) == (
        "forbidden", "doc/notes-alice needs the 'read' right; this token's read patterns: doc/notes-{sub}")
    assert bob.join("doc/notes-bob")["type"] == "snapshot"
    assert read_state(hub.url, "doc/notes-alice") == (1, {"t": "mine"})
    assert read_state(hub.url, "doc/notes-bob") == (0, {})


def test_the_bearer_scheme_is_read_in_any_case_and_other_schemes_carry_no_token(daemon_factory):
    hub = daemon_factory(auth_config())
    text = token("alice")
    for header in (f"Bearer {text}", f"bearer {text}", f"BEARER   {text}", f"Bearer {text}  \t"):
        assert Client(hub.url, headers={"Authorization": header}).hello["user"] == "alice", header
    for header in ("Basic YWxpY2U6c2VjcmV0", f"Bearer{text}", "Bearer"):
        hello = Client(hub.url, headers={"Authorization": header}).hello
        assert hello["auth"] == "required" and "user" not in hello, header
    # ?token= wins over the header
    assert Client(hub.url, token=token("bob"), headers={"Authorization": f"Bearer {text}"}).hello["user"] == "bob"


def test_the_same_token_on_many_connections_and_after_its_revocation(daemon_factory):
    # The daemon keeps what it verified of a token; that must not outlive a revocation.
    hub = daemon_factory(auth_config(admin={"token": "admin-0123"}))
    shared = token("alice", iat=int(time.time()) - 5)
    clients = [Client(hub.url, token=shared) for _ in range(5)] + [Client(hub.url, bearer=shared) for _ in range(5)]
    assert [c.hello["user"] for c in clients] == ["alice"] * 10
    from auth_support import http, refused
    assert http("POST", f"{hub.http_url}/admin/revoke", {"sub": "alice"}, bearer="admin-0123") == (200, '{"closed":10}')
    assert refused(hub.url, token=shared) == (401, "revoked\n")
    assert refused(hub.url, bearer=shared) == (401, "revoked\n")
