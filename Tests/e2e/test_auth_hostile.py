"""Hostile tokens against a daemon configured for RS256 (`auth.publicKeyFile`, a key pair made
by openssl): `alg: none`, HS256 signed with the public key as the secret, a flipped
signature byte, truncated and padded base64url, duplicate claims, an over-long `sub`, a
token past 8 KB, `exp` as a string, `{sub}` injection, act without read, and a refresh for
another `sub`. Each is refused with the reason PROTOCOL.md names; a reader then sees that
nothing changed, and a connection that stays open still answers a ping."""
import itertools
import json
import pathlib
import tempfile
import time

import jwt
import pytest
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from auth_support import Client, auth_config, b64url, raw_token, read_state, refused, rsa_key_pair, token
from conftest import Daemon

_reactors = itertools.count(1)


class Keys:
    def __init__(self, folder: pathlib.Path):
        private, public = rsa_key_pair(folder)
        self.private_pem = private.read_bytes()
        self.public_pem = public.read_bytes()
        self.public_path = public
        self.private = load_pem_private_key(self.private_pem, password=None)
        other, _ = rsa_key_pair(folder, "other")
        self.other_pem = other.read_bytes()

    def token(self, sub="alice", **claims) -> str:
        return token(sub, key=self.private_pem, algorithm="RS256", **claims)

    def raw(self, header: str, payload: str) -> str:
        return raw_token(header, payload, private_key=self.private)


@pytest.fixture(scope="module")
def keys():
    return Keys(pathlib.Path(tempfile.mkdtemp(prefix="rh-e2e-keys-")))


@pytest.fixture(scope="module")
def hub(keys):
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="rh-e2e-hostile-"))
    daemon = Daemon(auth_config({"hs256Secret": None, "publicKeyFile": str(keys.public_path)}), workdir, "auth-hostile")
    yield daemon
    daemon.stop()


@pytest.fixture
def watched(hub, keys):
    """A reactor with one change made by an authorized observer, who stays joined."""
    address = f"doc/hostile-{next(_reactors)}"
    observer = Client(hub.url, token=keys.token("observer"))
    observer.join(address)
    assert observer.act(address, {"type": "set", "path": "/a", "value": 1})["type"] == "ack"
    observer.next_unsolicited(lambda f: f["type"] == "patch" and f["version"] == 1)
    yield address, observer
    observer.close()


def assert_unchanged(hub, keys, address, observer):
    assert observer.ping()["type"] == "pong"
    assert [f for f in observer.unsolicited if f["type"] == "patch"] == []
    assert read_state(hub.url, address, keys.token("reader")) == (1, {"a": 1})


def payload(**claims) -> str:
    now = int(time.time())
    return json.dumps({"sub": "alice", "iat": now, "exp": now + 600, "rh": {"read": ["*"], "act": ["*"]}, **claims})


def flip_signature_byte(text: str) -> str:
    head, body, signature = text.split(".")
    raw = bytearray(jwt.utils.base64url_decode(signature))
    raw[len(raw) // 2] ^= 0x01
    return f"{head}.{body}.{b64url(bytes(raw))}"


def sized(keys, length: int) -> str:
    """A correctly signed RS256 token of exactly `length` bytes (a `pad` claim and a `kid`)."""
    signature_length = len(keys.token().split(".")[2])  # 2048-bit RSA: always the same
    for kid in range(0, 4):
        header = json.dumps({"alg": "RS256", "typ": "JWT", "kid": "k" * kid})
        for pad in range(length * 3 // 4 - 600, length * 3 // 4):
            body = payload(pad="x" * pad)
            if len(b64url(header.encode())) + len(b64url(body.encode())) + 2 + signature_length == length:
                text = keys.raw(header, body)
                assert len(text) == length
                return text
    raise AssertionError(f"no token of {length} bytes")


def unsigned(header: str, body: str) -> str:
    return f"{b64url(header.encode())}.{b64url(body.encode())}."


def standard_alphabet(keys) -> str:
    """A good token spelled with base64's `+` and `/` instead of base64url's `-` and `_`."""
    for attempt in itertools.count():
        text = keys.token(n=attempt)
        if "-" in text or "_" in text:
            return text.replace("-", "+").replace("_", "/")


# Tokens refused at the upgrade and in `auth`, with the reason of each.
HOSTILE = {
    "alg none": ("algorithm", lambda k: unsigned('{"alg":"none","typ":"JWT"}', payload())),
    "alg none signed": ("algorithm", lambda k: raw_token('{"alg":"none"}', payload())),
    "HS256 with the public key as secret": ("algorithm", lambda k: raw_token(
        '{"alg":"HS256","typ":"JWT"}', payload(), secret=k.public_pem.decode())),
    "signed by another key": ("bad signature", lambda k: token("alice", key=k.other_pem, algorithm="RS256")),
    "flipped signature byte": ("bad signature", lambda k: flip_signature_byte(k.token())),
    "signature truncated by one character": ("malformed", lambda k: k.token()[:-1]),
    "no signature part": ("malformed", lambda k: k.token().rsplit(".", 1)[0]),
    "padded signature": ("malformed", lambda k: k.token() + "=="),
    "padded payload": ("malformed", lambda k: "{}.{}=.{}".format(*k.token().split("."))),
    "standard base64 alphabet": ("malformed", standard_alphabet),
    "duplicate sub claim": ("malformed", lambda k: k.raw('{"alg":"RS256"}', payload()[:-1] + ', "sub": "admin"}')),
    "duplicate alg in the header": ("malformed", lambda k: k.raw('{"alg":"RS256","alg":"none"}', payload())),
    "sub of 129 characters": ("malformed", lambda k: k.token("a" * 129)),
    "empty sub": ("malformed", lambda k: k.token("")),
    "sub a number": ("malformed", lambda k: k.raw('{"alg":"RS256"}', payload(sub=7))),
    "token of 8193 bytes": ("malformed", lambda k: sized(k, 8193)),
    "exp a string": ("malformed", lambda k: k.raw('{"alg":"RS256"}', payload(exp=str(int(time.time()) + 600)))),
    "no exp": ("malformed", lambda k: k.token(ttl=None)),
    "rh an array": ("malformed", lambda k: k.raw('{"alg":"RS256"}', payload(rh=["*"]))),
}


@pytest.mark.parametrize("via", ["query", "header"])
@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_token_is_refused_at_the_upgrade(hub, keys, watched, case, via):
    address, observer = watched
    reason, make = HOSTILE[case]
    text = make(keys)
    status, body = refused(hub.url, token=text) if via == "query" else refused(hub.url, bearer=text)
    assert (status, body) == (401, reason + "\n")
    assert_unchanged(hub, keys, address, observer)


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_token_in_auth_is_unauthenticated_and_nothing_changes(hub, keys, watched, case):
    address, observer = watched
    reason, make = HOSTILE[case]
    client = Client(hub.url, token=keys.token("alice", read=["doc/*"], act=["doc/*"]))
    client.join(address)
    error = client.auth(make(keys))
    assert (error["type"], error["code"]) == ("error", "unauthenticated")
    assert f"({reason})" in error["message"]
    assert_unchanged(hub, keys, address, observer)
    assert client.ping()["type"] == "pong" and client.unsolicited == []
    assert client.act(address, {"type": "set", "path": "/b", "value": 2})["version"] == 1  # alice's rights stay


def test_a_good_rs256_token_is_accepted_and_hs256_is_not(hub, keys):
    assert Client(hub.url, token=keys.token("alice")).hello["user"] == "alice"
    assert refused(hub.url, token=token("alice")) == (401, "algorithm\n")


@pytest.mark.parametrize("via", ["query", "header"])
def test_a_token_of_8192_bytes_is_accepted_at_the_upgrade(hub, keys, via):
    # Regression: lws kept 4096 bytes for all request headers, so any token past ~4 KB at the
    # upgrade got no HTTP answer at all (the connection was dropped).
    text = sized(keys, 8192)
    client = Client(hub.url, token=text) if via == "query" else Client(hub.url, bearer=text)
    assert client.hello["user"] == "alice"
    assert client.join("doc/big-token")["type"] == "snapshot"


@pytest.mark.parametrize("exp", [2**62, 1e300])
def test_a_token_that_expires_ages_ahead_is_served_at_the_upgrade_and_in_auth(hub, keys, exp):
    # Regression: an exp past what an Int holds in nanoseconds trapped when the expiry was
    # armed (and 1e300 again in the authed reply's `expires`), which ended the daemon.
    text = keys.raw('{"alg":"RS256"}', payload(exp=exp))
    client = Client(hub.url, token=text)
    assert client.hello["user"] == "alice"
    authed = client.auth(text)
    assert authed["type"] == "authed" and authed["user"] == "alice"
    assert authed["expires"] == min(int(exp), 2**62)
    assert client.ping()["type"] == "pong"
    assert Client(hub.url, token=keys.token("bob")).hello["user"] == "bob"


def test_a_sub_of_128_characters_is_accepted(hub, keys):
    sub = "é" * 128  # characters, not bytes
    client = Client(hub.url, token=keys.token(sub))
    assert client.hello["user"] == sub


@pytest.mark.parametrize("sub", ["*", "bob*", "x/../notes-bob", "bob/*", "notes-bob"])
def test_a_sub_with_pattern_characters_does_not_widen_its_sub_patterns(hub, keys, sub):
    owner = Client(hub.url, token=keys.token("owner"))
    owner.join("doc/notes-bob")
    client = Client(hub.url, token=keys.token(sub, read=["doc/notes-{sub}", "{sub}/inbox"], act=["doc/notes-{sub}"]))
    assert client.hello["user"] == sub
    for address in ("doc/notes-bob", "doc/notes-bobby", "doc/notes-x", "doc/notes-", "doc/inbox", "todo/inbox"):
        if address == "doc/notes-":
            continue  # not an address at all
        refusal = client.join(address)
        assert (refusal["type"], refusal["code"]) == ("error", "forbidden"), address
        assert refusal["message"].startswith(f"{address} needs the 'read' right;")
    assert client.ping()["type"] == "pong" and client.unsolicited == []
    assert read_state(hub.url, "doc/notes-bob", keys.token("reader")) == (0, {})


def test_act_without_read_neither_joins_nor_acts(hub, keys, watched):
    address, observer = watched
    client = Client(hub.url, token=keys.token("alice", read=[], act=["doc/*"]))
    refusal = client.join(address)
    assert (refusal["code"], refusal["message"]) == (
        "forbidden", f"{address} needs the 'read' right; this token's read patterns: none")
    refusal = client.act(address, {"type": "set", "path": "/a", "value": 666})
    assert refusal["code"] == "not_joined"
    assert_unchanged(hub, keys, address, observer)
    assert client.ping()["type"] == "pong"


def test_a_refresh_for_another_sub_is_forbidden_and_the_identity_stays(hub, keys, watched):
    address, observer = watched
    client = Client(hub.url, token=keys.token("alice", read=["doc/*"], act=[]))
    client.join(address)
    refusal = client.auth(keys.token("admin", read=["*"], act=["*"]))
    assert (refusal["type"], refusal["code"]) == ("error", "forbidden")
    assert refusal["message"] == ("this connection is authenticated as 'alice'; a token for 'admin' cannot replace it "
                                  "(a connection keeps one identity)")
    # Still alice, with alice's rights: acting stays forbidden.
    assert client.act(address, {"type": "set", "path": "/a", "value": 666})["code"] == "forbidden"
    assert_unchanged(hub, keys, address, observer)
    assert client.auth(keys.token("alice", read=["doc/*"], act=["doc/*"]))["user"] == "alice"
    assert client.act(address, {"type": "set", "path": "/b", "value": 2})["type"] == "ack"
