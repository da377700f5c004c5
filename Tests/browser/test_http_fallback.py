"""The demo page behind a proxy that refuses WebSocket upgrades (API.md "The event stream"): it
falls back to Server-Sent Events through Chromium's own EventSource and sends its actions as
POSTs, stays in sync with a session on a WebSocket, and after the daemon restarts (SQLite,
clean stop, same port) its event streams resume with Last-Event-ID: the missed patches, no
snapshot."""
import re
import signal
import urllib.request
import uuid

from browser_support import daemon_config, websocket_failure
from websocket_blocking_proxy import WebSocketBlockingProxy


def todo_titles(browser):
    return browser.driver.execute_script(
        "return [...document.querySelectorAll('[data-testid=\"todo-title\"]')].map((title) => title.textContent);")


def open_through(browser, proxy, room):
    browser.driver.get("about:blank")
    browser.driver.get(f"{proxy.url}#room={room}")
    browser.wait_status("open", timeout=15)
    for kind in ("counter", "weather", "todo"):
        browser.wait(lambda _: browser.attr(f"version-{kind}", "data-version") is not None, f"{kind} state")


def metric(daemon, name: str, **labels) -> float:
    text = urllib.request.urlopen(f"{daemon.url}metrics", timeout=10).read().decode()
    wanted = ",".join(f'{key}="{value}"' for key, value in labels.items())
    match = re.search(rf"^{name}\{{{re.escape(wanted)}\}} (\S+)$", text, re.M)
    return float(match.group(1)) if match else -1.0


def add_todo(browser, title):
    browser.find("todo-new").send_keys(title)
    browser.find("todo-add").click()
    browser.wait(lambda _: browser.find("todo-new").get_attribute("value") == "", "the input to clear after the ack")


def test_the_demo_works_over_server_sent_events_when_websocket_is_blocked(daemon_factory, browsers, allowed_console_errors, workdir):
    a, b = browsers
    config = daemon_config(counter_delay_ms=100)
    config["persistence"] = {"kind": "sqlite", "path": str(workdir / "fallback.sqlite"), "flushMs": 20}
    daemon = daemon_factory(config, "http-fallback")
    proxy = WebSocketBlockingProxy(daemon.port)
    # The refused upgrade, and the event streams while the daemon restarts, are logged by Chromium.
    allowed_console_errors.append(websocket_failure(proxy.port))
    allowed_console_errors.append(re.compile(rf"127\.0\.0\.1:{proxy.port}/api/v1/"))
    allowed_console_errors.append(websocket_failure(daemon.port))
    room = f"fallback-{uuid.uuid4().hex[:8]}"
    try:
        open_through(a, proxy, room)
        assert proxy.refused >= 1
        assert a.text("server-info").startswith("reactorhub over HTTP (Server-Sent Events)")
        b.open(daemon, room)  # the other session on a WebSocket
        assert not b.text("server-info").startswith("reactorhub over HTTP")

        a.find("counter-plus").click()
        for browser in (a, b):
            browser.wait_text("counter-value", "1")
            browser.wait(lambda _: browser.text("counter-toast") == "increased!", "the pulse's toast")
        add_todo(a, "Milk over HTTP")
        add_todo(b, "Bread over WebSocket")
        for browser in (a, b):
            browser.wait(lambda _: todo_titles(browser) == ["Milk over HTTP", "Bread over WebSocket"], f"both items in {browser.name}")
        assert a.version("todo") == b.version("todo") == 2
        a.screenshot("fallback-01-in-sync")

        # A clean restart on SQLite: same epoch, history kept; Chromium's EventSource reconnects
        # with Last-Event-ID, and the daemon resumes each stream.
        daemon.process.send_signal(signal.SIGTERM)
        assert daemon.process.wait(15) == 0
        daemon.restart()
        b.wait_status("open", timeout=15)
        b.find("counter-plus").click()
        for browser in (a, b):
            browser.wait_text("counter-value", "2", timeout=20)
        add_todo(b, "After the restart")
        a.wait(lambda _: todo_titles(a)[-1:] == ["After the restart"], "the item added after the restart", timeout=20)
        assert a.version("todo") == b.version("todo") == 3
        assert a.status() == "open"
        # The counter and the todo list changed before the restart (so they were stored): their
        # joins resumed, b's two over its WebSocket and a's two event streams with Last-Event-ID
        # (four resumes need both of a's). The weather never changed and was not stored: it
        # starts a new epoch, and each session gets its snapshot.
        a.wait(lambda _: metric(daemon, "reactorhub_resumes_total", result="resumed") >= 4, "four resumed joins", timeout=20)
        assert metric(daemon, "reactorhub_resumes_total", result="snapshot") <= 2
        a.screenshot("fallback-02-after-restart")
    finally:
        a.driver.get("about:blank")
        b.driver.get("about:blank")
        proxy.close()
