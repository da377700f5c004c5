"""The Origin rule at the upgrade (PROTOCOL.md "Origin", `security.allowedOrigins`): listed
origins, `*`, the daemon's own origin and upgrades without Origin open (101); anything else,
`null` included, is answered with HTTP 403 and no WebSocket opens."""
import pytest

from auth_support import Client, auth_config, refused, token
from conftest import base_config

LISTED = "https://app.example.com"


def opens(hub, origin: str | None, **credentials) -> bool:
    client = Client(hub.url, headers={} if origin is None else {"Origin": origin}, **credentials)
    try:
        return client.hello["type"] == "hello" and client.ping()["type"] == "pong"
    finally:
        client.close()


def forbidden_body(origin: str) -> str:
    return f"origin {origin} is not allowed (security.allowedOrigins)\n"


@pytest.fixture
def hub(daemon_factory):
    return daemon_factory(base_config(security={"allowedOrigins": [LISTED]}))


def test_an_evil_origin_is_refused_with_403(hub):
    assert refused(hub.url, headers={"Origin": "https://evil.example"}) == (403, forbidden_body("https://evil.example"))


def test_the_same_origin_opens(hub):
    assert opens(hub, f"http://127.0.0.1:{hub.port}")


def test_a_listed_origin_opens_however_it_is_spelled(hub):
    assert opens(hub, LISTED)
    assert opens(hub, "HTTPS://App.Example.com:443")


def test_no_origin_opens(hub):
    assert opens(hub, None)


def test_a_null_origin_is_refused_with_403(hub):
    assert refused(hub.url, headers={"Origin": "null"}) == (403, forbidden_body("null"))


@pytest.mark.parametrize("origin", [
    "http://127.0.0.1:1",                 # the same host on another port
    "https://app.example.com.evil.example",  # a listed origin as a prefix
    "http://app.example.com",             # a listed host with another scheme (another default port)
    "http://localhost",                   # another host name
], ids=["other-port", "listed-as-prefix", "other-scheme", "other-host"])
def test_near_misses_are_refused(hub, origin):
    assert refused(hub.url, headers={"Origin": origin}) == (403, forbidden_body(origin))
    assert opens(hub, None)  # the daemon goes on serving


def test_star_allows_any_origin(daemon_factory):
    hub = daemon_factory(base_config(security={"allowedOrigins": ["*"]}))
    for origin in ("https://evil.example", f"http://127.0.0.1:{hub.port}", None):
        assert opens(hub, origin), origin


def test_by_default_only_the_same_origin_opens(daemon):
    assert opens(daemon, f"http://127.0.0.1:{daemon.port}")
    assert refused(daemon.url, headers={"Origin": LISTED}) == (403, forbidden_body(LISTED))


def test_the_origin_is_checked_before_the_token(daemon_factory):
    hub = daemon_factory(auth_config(security={"allowedOrigins": [LISTED]}))
    good = token("alice")
    assert refused(hub.url, token=good, headers={"Origin": "https://evil.example"}) == (
        403, forbidden_body("https://evil.example"))
    assert refused(hub.url, token="bad", headers={"Origin": LISTED}) == (401, "malformed\n")
    assert opens(hub, LISTED, token=good)
