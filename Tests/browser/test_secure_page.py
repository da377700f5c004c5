"""The demo page against the shipped config/secure.json, set up as docs/security.md says (a
secret in REACTORHUB_AUTH_SECRET, a self-signed certificate made by `openssl req` in tls/,
tokens minted by `reactorhub token --config …/secure.json`), in headless Chromium: without a
token the page names the refusal and stops (no "Connected", no reconnect loop); signing in
with a token in the form, or with `?token=` in the address, connects and acts; a token whose
rights refuse every card is named; a revoked session stops with the reason."""
import json
import re
import shutil
import ssl
import subprocess
import urllib.request
import uuid

import pytest

from browser_support import BINARY, DESKTOP, ROOT, Browser, Daemon

SECRET = "browser-secure-0123456789abcdef0123456789abcdef"
ADMIN_TOKEN = "browser-admin-4f2b"


def secure_daemon(tmp_path, monkeypatch, **changes) -> Daemon:
    """config/secure.json as shipped (plus `changes`), in a copy of config/ with its own tls/."""
    folder = tmp_path / "config"
    (folder / "tls").mkdir(parents=True)
    shutil.copy(ROOT / "config" / "weather.json", folder / "weather.json")
    (tmp_path / "web").symlink_to(ROOT / "web")  # webRoot "../web", as in the checkout
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "365", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", "tls/key.pem", "-out", "tls/cert.pem"], cwd=folder, check=True, capture_output=True, timeout=120)
    config = json.loads((ROOT / "config" / "secure.json").read_text())
    config.update(changes)
    monkeypatch.setenv("REACTORHUB_AUTH_SECRET", SECRET)
    return Daemon(config, folder, "secure")


def mint(daemon: Daemon, *rights: str, ttl: str = "1h") -> str:
    """`reactorhub token --config …/secure.json --sub alice RIGHTS --ttl TTL`, as docs/security.md."""
    result = subprocess.run([str(BINARY), "token", "--config", str(daemon.config_path), "--sub", "alice", *rights, "--ttl", ttl],
                            capture_output=True, text=True, timeout=30, check=True)
    return result.stdout.strip()


def logged(daemon: Daemon, message: str) -> list[str]:
    """The daemon's log lines (text format) with `message` ("connection opened", "connection
    closed"), in order; its log file is appended to by every run, so tests compare counts."""
    return [line for line in daemon.log_path.read_text().splitlines() if message in line]


@pytest.fixture
def browser():
    session = Browser("SECURE", DESKTOP, extra_arguments=["--ignore-certificate-errors"])
    yield session
    session.quit()


@pytest.fixture
def daemon(tmp_path, monkeypatch):
    started = secure_daemon(tmp_path, monkeypatch)
    yield started
    started.stop()


def wait_cards(browser):
    for kind in ("counter", "weather", "todo"):
        browser.wait(lambda _: browser.attr(f"version-{kind}", "data-version") is not None, f"{kind} state", timeout=15)


def test_without_a_token_the_page_names_the_refusal_and_stops(daemon, browser):
    assert daemon.url.startswith("https://")
    opened, closed = len(logged(daemon, "connection opened")), len(logged(daemon, "connection closed"))
    browser.driver.get(f"{daemon.url}#room=secure-{uuid.uuid4().hex[:6]}")
    browser.wait_status("refused", timeout=15)
    assert browser.text("connection-status") == "Sign-in needed"
    browser.wait_visible("sign-in")
    assert "needs a token (unauthenticated)" in browser.text("sign-in-reason")
    assert browser.driver.execute_script("return window.reactorhubDemo.client.status") == "closed"
    browser.screenshot("secure-sign-in-needed")
    # The page closed its one connection itself (1000), before the server's authentication
    # timeout (auth.timeoutMs 10000 would close it with 1008): nothing reconnects.
    browser.wait(lambda _: len(logged(daemon, "connection closed")) == closed + 1, "the page's connection closed", timeout=15)
    assert re.search(r"code=1000\b", logged(daemon, "connection closed")[-1]), logged(daemon, "connection closed")[-1]
    assert len(logged(daemon, "connection opened")) == opened + 1
    assert browser.driver.execute_script("return window.reactorhubDemo.client.attempt") == 0
    assert browser.status() == "refused"


def test_signing_in_with_a_token_connects_and_acts(daemon, browser):
    room = f"secure-{uuid.uuid4().hex[:6]}"
    browser.driver.get(f"{daemon.url}#room={room}")
    browser.wait_visible("sign-in", timeout=15)
    browser.find("sign-in-token").send_keys(mint(daemon, "--read", "*", "--act", "*"))
    browser.find("sign-in-submit").click()
    browser.wait_status("open", timeout=15)
    assert browser.text("connection-status") == "Connected"
    browser.wait_visible("sign-in", False)
    wait_cards(browser)
    assert browser.driver.execute_script("return window.reactorhubDemo.client.user") == "alice"
    browser.find("counter-plus").click()
    browser.wait_text("counter-value", "1", timeout=15)
    browser.screenshot("secure-signed-in")
    # The token is kept for this tab: a reload connects without the form.
    browser.driver.refresh()
    browser.wait_status("open", timeout=15)
    wait_cards(browser)
    assert not browser.visible("sign-in")
    assert browser.text("counter-value") == "1"


def test_a_token_in_the_address_connects_and_one_that_refuses_every_card_is_named(daemon, browser):
    room = f"secure-{uuid.uuid4().hex[:6]}"
    browser.driver.get(f"{daemon.url}?token={mint(daemon, '--read', '*', '--act', 'counter/*')}#room={room}")
    browser.wait_status("open", timeout=15)
    wait_cards(browser)
    browser.find("counter-plus").click()
    browser.wait_text("counter-value", "1", timeout=15)

    browser.driver.get("about:blank")
    browser.driver.get(f"{daemon.url}?token={mint(daemon, '--read', 'doc/*')}#room={room}")
    browser.wait_status("refused", timeout=15)
    assert browser.text("connection-status") == "Refused"
    browser.wait_visible("sign-in")
    reason = browser.text("sign-in-reason")
    assert reason.startswith("Every reactor of this room was refused (forbidden): ")
    assert "needs the 'read' right; this token's read patterns: doc/*" in reason
    browser.screenshot("secure-every-card-refused")



def test_a_token_the_server_refuses_at_the_upgrade_is_offered_the_form_after_a_few_attempts(daemon, browser):
    # A browser sees a refused upgrade (401 malformed) only as a failed connection.
    browser.driver.get(f"{daemon.url}?token=not.a.token#room=secure-{uuid.uuid4().hex[:6]}")
    browser.wait_status("refused", timeout=30)
    assert browser.text("connection-status") == "Refused"
    assert browser.text("sign-in-reason") == (
        "The server did not accept the connection 3 times while it is up: the token may be expired, revoked or not valid here. "
        "Sign in with another token.")
    assert browser.driver.execute_script("return window.reactorhubDemo.client.status") == "closed"
    # Each attempt was refused: the WebSocket upgrades, and the HTTP fallback's requests the page
    # tries in between (docs/api-http.md).
    assert len([line for line in logged(daemon, ": token refused") if "reason=malformed" in line]) >= 3


def test_a_revoked_session_stops_with_the_reason(tmp_path, monkeypatch, browser):
    daemon = secure_daemon(tmp_path, monkeypatch, admin={"token": ADMIN_TOKEN})
    try:
        room = f"secure-{uuid.uuid4().hex[:6]}"
        browser.driver.get(f"{daemon.url}?token={mint(daemon, '--read', '*', '--act', '*')}#room={room}")
        browser.wait_status("open", timeout=15)
        wait_cards(browser)
        opened, closed = len(logged(daemon, "connection opened")), len(logged(daemon, "connection closed"))
        request = urllib.request.Request(f"{daemon.url}admin/revoke", data=b'{"sub":"alice"}', method="POST",
                                         headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        context = ssl.create_default_context(cafile=str(tmp_path / "config" / "tls" / "cert.pem"))
        with urllib.request.urlopen(request, timeout=10, context=context) as answer:
            assert json.loads(answer.read()) == {"closed": 1}
        browser.wait_status("refused", timeout=15)
        assert browser.text("connection-status") == "Refused"
        assert browser.text("sign-in-reason") == "The server ended the session (1008: revoked). Sign in again with a valid token."
        assert browser.driver.execute_script("return window.reactorhubDemo.client.status") == "closed"
        browser.screenshot("secure-revoked")
        # One close (the revocation), and the page made no new connection since.
        browser.wait(lambda _: len(logged(daemon, "connection closed")) == closed + 1, "the revoked close logged")
        assert "reason=revoked" in logged(daemon, "connection closed")[-1]
        assert len(logged(daemon, "connection opened")) == opened
        assert browser.driver.execute_script("return window.reactorhubDemo.client.attempt") == 0
    finally:
        daemon.stop()
