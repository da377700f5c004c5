"""Every token refusal of PROTOCOL.md "Identity and rights", end to end: at the upgrade (HTTP
401 with the one-line reason, no WebSocket) and in `auth` messages (`error`
`unauthenticated`, and what was in force stays). After each refusal another authorized
client reads the state (nothing changed), and a connection that stays open still answers
a ping. Tokens are minted by PyJWT."""
import itertools
import socket
import tempfile
import time
import pathlib

import pytest

from auth_support import ADMIN_TOKEN, Client, auth_config, http, read_state, refused, token
from conftest import Daemon

AUDIENCE = "hub-e2e"
ISSUER = "https://issuer.e2e"
OTHER_SECRET = "another-secret-that-is-long-enough-0123456789abcdef0123456789abcdef"
_reactors = itertools.count(1)


def good(**claims) -> str:
    """A token this daemon accepts (it checks aud and iss), unless `claims` say otherwise."""
    claims.setdefault("aud", AUDIENCE)
    claims.setdefault("iss", ISSUER)
    return token(**claims)


# Each reason of PROTOCOL.md, and a token refused for it (and for nothing else).
REFUSALS = {
    "expired": lambda: good(ttl=-60),
    "not yet valid": lambda: good(nbf=int(time.time()) + 600),
    "bad signature": lambda: good(key=OTHER_SECRET),
    "malformed": lambda: "not-a.jwt",
    "audience": lambda: good(aud="another-hub"),
    "issuer": lambda: good(iss="https://evil.example"),
    "algorithm": lambda: good(algorithm="HS384"),
    # mallory is revoked when the daemon starts; this token was issued 10 s before that.
    "revoked": lambda: good(sub="mallory", iat=int(time.time()) - 10),
}


@pytest.fixture(scope="module")
def hub():
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="rh-e2e-refusals-"))
    daemon = Daemon(auth_config({"audience": AUDIENCE, "issuer": ISSUER, "leewaySeconds": 5},
                                admin={"token": ADMIN_TOKEN}), workdir, "auth-refusals")
    status, body = http("POST", f"{daemon.http_url}/admin/revoke", {"sub": "mallory"}, bearer=ADMIN_TOKEN)
    assert (status, body) == (200, '{"closed":0}')
    yield daemon
    daemon.stop()


@pytest.fixture
def watched(hub):
    """A reactor with one change made by an authorized observer, who stays joined."""
    address = f"doc/refusal-{next(_reactors)}"
    observer = Client(hub.url, token=good(sub="observer"))
    assert observer.join(address)["version"] == 0
    ack = observer.act(address, {"type": "set", "path": "/a", "value": 1})
    assert (ack["type"], ack["reactor"], ack["version"]) == ("ack", address, 0)
    observer.next_unsolicited(lambda f: f["type"] == "patch" and f["version"] == 1)
    yield address, observer
    observer.close()


def assert_unchanged(hub, address, observer):
    """The observer got no patch since, is still usable, and a fresh reader sees version 1."""
    assert observer.ping()["type"] == "pong"
    assert [f for f in observer.unsolicited if f["type"] == "patch"] == []
    assert read_state(hub.url, address, good(sub="reader")) == (1, {"a": 1})


def test_the_reasons_are_exactly_those_of_the_protocol():
    assert list(REFUSALS) == ["expired", "not yet valid", "bad signature", "malformed", "audience", "issuer",
                              "algorithm", "revoked"]


@pytest.mark.parametrize("via", ["query", "header"])
@pytest.mark.parametrize("reason", list(REFUSALS))
def test_a_token_refused_at_the_upgrade_gets_401_with_the_reason(hub, watched, reason, via):
    address, observer = watched
    text = REFUSALS[reason]()
    status, body = refused(hub.url, token=text) if via == "query" else refused(hub.url, bearer=text)
    assert (status, body) == (401, reason + "\n")
    assert_unchanged(hub, address, observer)


def test_the_refusal_is_an_http_1_1_status_line_with_a_plain_text_body(hub):
    with socket.create_connection(("127.0.0.1", hub.port), timeout=10) as connection:
        connection.sendall((
            f"GET /ws?token={REFUSALS['expired']()} HTTP/1.1\r\nHost: 127.0.0.1:{hub.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        answer = b""
        while not answer.endswith(b"expired\n"):
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    head, body = answer.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    assert lines[0] == "HTTP/1.1 401 Unauthorized"
    assert "content-type: text/plain; charset=utf-8" in [line.lower() for line in lines]
    assert "content-length: 8" in [line.lower() for line in lines]
    assert body == b"expired\n"


@pytest.mark.parametrize("reason", list(REFUSALS))
def test_a_refused_auth_message_is_unauthenticated_and_the_connection_still_waits(hub, watched, reason):
    address, observer = watched
    client = Client(hub.url)
    assert client.hello["auth"] == "required"
    error = client.auth(REFUSALS[reason]())
    assert (error["type"], error["code"]) == ("error", "unauthenticated")
    assert f"({reason})" in error["message"] and error["message"].endswith("what was in force stays")
    # Still unauthenticated: a join is refused, a ping is answered, a good token then works.
    assert client.join(address)["code"] == "unauthenticated"
    assert client.ping()["type"] == "pong"
    assert_unchanged(hub, address, observer)
    assert client.auth(good(sub="late"))["user"] == "late"
    assert client.join(address)["version"] == 1
    client.close()


@pytest.mark.parametrize("reason", list(REFUSALS))
def test_a_refused_refresh_keeps_the_identity_rights_and_joins_in_force(hub, watched, reason):
    address, observer = watched
    first = good(sub="alice", read=["doc/*"], act=["doc/*"])
    client = Client(hub.url, token=first)
    assert client.hello["user"] == "alice"
    assert client.join(address)["version"] == 1
    error = client.auth(REFUSALS[reason]())
    assert (error["type"], error["code"]) == ("error", "unauthenticated")
    assert f"({reason})" in error["message"]
    assert_unchanged(hub, address, observer)
    # What was in force stays: still joined (no `left`), still allowed to act.
    assert client.unsolicited == []
    ack = client.act(address, {"type": "set", "path": "/b", "value": 2})
    assert (ack["type"], ack["version"]) == ("ack", 1)
    patch = observer.next_unsolicited(lambda f: f["type"] == "patch")
    assert patch["version"] == 2
    client.close()
