"""Expiry and refresh with short-lived tokens (`auth.leewaySeconds: 0`), end to end: a token
that runs out closes its connection with 1008 `token expired`; a refresh before `exp` keeps
it open past the first `exp`; a refresh replaces the expiry; a refresh with narrowed rights
leaves every reactor the new rights no longer allow to read, with an unsolicited `left`
(reason `forbidden`) for each. Codes, reasons and orders are asserted, never durations."""
import time

from auth_support import Client, auth_config, decode_payload, read_state, refused, token

SHORT = 4  # seconds: a token's whole life in these tests (room for a busy machine to connect)


def short_lived_hub(daemon_factory):
    return daemon_factory(auth_config({"leewaySeconds": 0}))


def test_a_token_that_runs_out_closes_the_connection_with_1008_token_expired(daemon_factory):
    hub = short_lived_hub(daemon_factory)
    at_upgrade = Client(hub.url, token=token("alice", ttl=SHORT))
    by_message = Client(hub.url)
    assert by_message.auth(token("bob", ttl=SHORT))["type"] == "authed"
    at_upgrade.join("doc/expiry")
    for client in (at_upgrade, by_message):
        assert client.closed() == (1008, "token expired")
        assert [f for f in client.unsolicited if f["type"] == "error"] == []
    # The reactor is untouched and other connections go on.
    assert read_state(hub.url, "doc/expiry") == (0, {})


def test_a_refresh_before_exp_keeps_the_connection_open_past_the_first_exp(daemon_factory):
    hub = short_lived_hub(daemon_factory)
    first = token("alice", ttl=SHORT)
    first_exp = decode_payload(first)["exp"]
    refreshed = Client(hub.url, token=first)
    unrefreshed = Client(hub.url, token=first)  # the same token, never refreshed: the witness
    refreshed.join("doc/refresh")
    longer = token("alice", ttl=600)
    authed = refreshed.auth(longer)
    assert (authed["type"], authed["user"], authed["expires"]) == ("authed", "alice", decode_payload(longer)["exp"])
    # The witness is closed at the first exp; the refreshed connection outlives it.
    assert unrefreshed.closed() == (1008, "token expired")
    while time.time() <= first_exp + 0.5:
        assert refreshed.ping()["type"] == "pong"
        time.sleep(0.1)
    # The daemon keeps what it verified of a token, but not past its exp.
    assert refused(hub.url, token=first) == (401, "expired\n")
    assert refreshed.act("doc/refresh", {"type": "set", "path": "/alive", "value": True})["type"] == "ack"
    assert refreshed.ping()["type"] == "pong"
    assert [f for f in refreshed.unsolicited if f["type"] not in ("patch",)] == []


def test_a_refresh_replaces_the_expiry_with_a_shorter_one_too(daemon_factory):
    hub = short_lived_hub(daemon_factory)
    client = Client(hub.url, token=token("alice", ttl=600))
    shorter = token("alice", ttl=SHORT)
    assert client.auth(shorter)["expires"] == decode_payload(shorter)["exp"]
    assert client.closed() == (1008, "token expired")


def test_a_refresh_with_narrowed_rights_leaves_each_reactor_no_longer_readable(daemon_factory):
    hub = short_lived_hub(daemon_factory)
    alice = Client(hub.url, token=token("alice", read=["doc/*", "todo/*"], act=["doc/*", "todo/*"]))
    bob = Client(hub.url, token=token("bob"))
    for address in ("doc/lose-b", "doc/keep", "todo/lose", "doc/lose-a"):
        assert alice.join(address)["type"] == "snapshot"
        bob.join(address)
    alice.send({"type": "auth", "token": token("alice", read=["doc/keep"], act=["doc/keep"]), "ref": "narrow"})
    frames = [alice.recv() for _ in range(4)]
    assert frames[0]["type"] == "authed" and frames[0]["ref"] == "narrow"
    assert frames[1:] == [{"type": "left", "reactor": address, "reason": "forbidden"}
                          for address in ("doc/lose-a", "doc/lose-b", "todo/lose")]
    # The kept reactor goes on; the left ones are neither joined nor joinable.
    assert alice.act("doc/keep", {"type": "set", "path": "/k", "value": 1})["type"] == "ack"
    assert alice.act("doc/lose-a", {"type": "set", "path": "/x", "value": 1})["code"] == "not_joined"
    refusal = alice.join("doc/lose-a")
    assert (refusal["code"], refusal["message"]) == (
        "forbidden", "doc/lose-a needs the 'read' right; this token's read patterns: doc/keep")
    assert bob.act("doc/lose-b", {"type": "set", "path": "/b", "value": 1})["type"] == "ack"
    assert bob.act("doc/keep", {"type": "set", "path": "/b", "value": 1})["type"] == "ack"
    assert alice.next_unsolicited(lambda f: f["type"] == "patch" and f["version"] == 2)["reactor"] == "doc/keep"
    assert alice.ping()["type"] == "pong"
    assert {f["reactor"] for f in alice.unsolicited if f["type"] in ("patch", "snapshot", "left")} <= {"doc/keep"}
    assert read_state(hub.url, "doc/lose-a") == (0, {})
    assert read_state(hub.url, "doc/lose-b") == (1, {"b": 1})


def test_a_refresh_with_the_same_rights_leaves_nothing(daemon_factory):
    hub = short_lived_hub(daemon_factory)
    rights = dict(read=["doc/*"], act=["doc/*"])
    alice = Client(hub.url, token=token("alice", **rights))
    alice.join("doc/same-a")
    alice.join("doc/same-b")
    assert alice.auth(token("alice", **rights))["type"] == "authed"
    assert alice.ping()["type"] == "pong"
    assert alice.unsolicited == []
    assert alice.act("doc/same-b", {"type": "set", "path": "/x", "value": 1})["type"] == "ack"
