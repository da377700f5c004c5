"""The demo page over HTTPS: a daemon with a self-signed certificate made by `openssl req` in
the test, and headless Chromium started with --ignore-certificate-errors. The page connects
with wss:// (defaultUrl follows the page's scheme), joins its three reactors and acts."""
import subprocess
import uuid

import pytest

from browser_support import DESKTOP, Browser, Daemon, daemon_config


@pytest.fixture
def tls_daemon(tmp_path):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem",
                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   cwd=tmp_path, check=True, capture_output=True, timeout=120)
    config = daemon_config()
    config["tls"] = {"certFile": "cert.pem", "keyFile": "key.pem"}  # relative to the config's folder
    daemon = Daemon(config, tmp_path, "tls")
    yield daemon
    daemon.stop()


@pytest.fixture
def tls_browser():
    browser = Browser("TLS", DESKTOP, extra_arguments=["--ignore-certificate-errors"])
    yield browser
    browser.quit()


def test_the_demo_page_over_https_joins_and_acts(tls_daemon, tls_browser):
    assert tls_daemon.url.startswith("https://127.0.0.1:")
    browser = tls_browser
    room = f"tls-{uuid.uuid4().hex[:8]}"
    browser.open(tls_daemon, room)
    scheme, socket_url, status = browser.driver.execute_script(
        "return [location.protocol, window.reactorhubDemo.client.url, window.reactorhubDemo.client.status]")
    assert (scheme, status) == ("https:", "open")
    assert socket_url == f"wss://127.0.0.1:{tls_daemon.port}/ws"
    assert browser.text("connection-status") == "Connected"
    assert [browser.version(kind) for kind in ("counter", "weather", "todo")] == [0, 0, 0]

    browser.find("counter-plus").click()
    browser.wait_text("counter-value", "1")
    browser.wait(lambda _: browser.version("counter") == 3, "counter v3 (loading, value, loaded)")
    browser.find("todo-new").send_keys("over TLS")
    browser.find("todo-add").click()
    browser.wait(lambda _: [e.text for e in browser.find_all("todo-title")] == ["over TLS"], "the todo item")
    browser.find("weather-city").send_keys("Seoul")
    browser.find("weather-search").click()
    browser.wait_text("weather-card-city", "Seoul")
    browser.screenshot("tls-page")
    # The frames went over the wss connection: join, actions, snapshots and patches are logged.
    types = browser.driver.execute_script(
        "return [...document.querySelectorAll('[data-testid=frame-log-entry]')].map(e => e.dataset.direction + ':' + e.dataset.type)")
    for expected in ("in:hello", "out:join", "in:snapshot", "out:action", "in:ack", "in:patch"):
        assert expected in types, expected
    severe = [entry for entry in browser.read_console() if entry.get("level") == "SEVERE"]
    assert severe == []
