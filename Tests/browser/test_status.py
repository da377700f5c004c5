"""The status page (/status, web/status/; docs/operations.md "The status page"): served
under the daemon's CSP with no inline code, every data-testid present, plots that move while
a Python client sends actions, readiness, and the top instances by subscribers with the
admin token kept in sessionStorage only. Screenshots in test-output/screenshots."""
import json
import re
import threading
import time
import urllib.request

import pytest
from websockets.sync.client import connect

from browser_support import ROOT, daemon_config

TOKEN = "status-admin-token"
PLOTS = ["connections", "instances", "actions", "frames", "queued"]
TESTIDS = (
    ["status-version", "status-updated", "status-readiness", "status-readiness-text", "status-error", "status-interval",
     "top-card", "top-total", "admin-token-form", "admin-token", "admin-token-save", "admin-token-forget", "top-message",
     "top-instances", "top-instances-body"]
    + [f"card-{p}" for p in PLOTS] + [f"value-{p}" for p in PLOTS] + [f"plot-{p}" for p in PLOTS]
)
ROW_TESTIDS = ["top-instance", "top-instance-address", "top-instance-subscribers", "top-instance-version", "top-instance-queued"]


@pytest.fixture(scope="module")
def status_daemon(daemon_factory):
    config = daemon_config()
    config["admin"] = {"token": TOKEN}
    return daemon_factory(config, "status")


@pytest.fixture
def allowed_console_errors():
    # Chromium logs a fetch answered with 401 as a console error; the wrong-token step expects it.
    return [re.compile(r"/admin/instances\?limit=1000 - Failed to load resource: the server responded with a status of 401")]


def url(daemon, path="/status/", interval_ms=500):
    return f"http://127.0.0.1:{daemon.port}{path}?interval={interval_ms}"


class Member:
    """A plain WebSocket client that joins one reactor and stays."""

    def __init__(self, daemon, address):
        self.ws = connect(f"ws://127.0.0.1:{daemon.port}/ws", subprotocols=["reactorhub.v1"], open_timeout=30,
                          proxy=None, compression=None, legacy=True)
        assert json.loads(self.ws.recv(timeout=30))["type"] == "hello"
        self.ws.send(json.dumps({"type": "join", "reactor": address, "ref": "join"}))
        assert json.loads(self.ws.recv(timeout=30))["type"] == "snapshot"

    def close(self):
        self.ws.close()


class Load(threading.Thread):
    """Sends doc actions one after the other (each waits for its ack) until stopped, for at
    most `limit` seconds."""

    def __init__(self, daemon, address, limit=120.0):
        super().__init__(daemon=True)
        self.member = Member(daemon, address)
        self.address = address
        self.limit = limit
        self.stopping = threading.Event()
        self.acked = 0
        self.error = None

    def run(self):
        try:
            deadline = time.monotonic() + self.limit
            n = 0
            while not self.stopping.is_set() and time.monotonic() < deadline:
                n += 1
                self.member.ws.send(json.dumps({"type": "action", "reactor": self.address, "ref": n,
                                                "action": {"type": "set", "path": "/n", "value": n}}))
                while True:
                    message = json.loads(self.member.ws.recv(timeout=30))
                    if message.get("ref") == n:
                        assert message["type"] == "ack", message
                        self.acked += 1
                        break
                self.stopping.wait(0.01)  # pacing: about a hundred actions a second
        except Exception as error:  # reported by stop()
            self.error = error

    def stop(self):
        self.stopping.set()
        self.join(30)
        self.member.close()
        assert self.error is None, self.error


def points(browser, plot):
    return int(browser.attr(f"plot-{plot}", "data-points"))


def value(browser, plot):
    text = browser.attr(f"value-{plot}", "data-value")
    return None if text in (None, "") else float(text)


def drawn(browser, plot):
    """(data-points, the polyline's vertices) of a plot, read at once (a poll may redraw it)."""
    return tuple(browser.driver.execute_script("""
        const svg = document.querySelector(`[data-testid="plot-${arguments[0]}"]`);
        const line = svg.querySelector('.plot-line').getAttribute('points').trim();
        return [Number(svg.dataset.points), line === '' ? 0 : line.split(/\\s+/).length];""", plot))


def top_rows(browser):
    """[(address, subscribers text, cells with a testid)] of the table, read at once (each
    poll renders the rows anew)."""
    return [tuple(row) for row in browser.driver.execute_script("""
        return [...document.querySelectorAll('[data-testid="top-instance"]')].map((row) => [
          row.querySelector('[data-testid="top-instance-address"]').textContent,
          row.querySelector('[data-testid="top-instance-subscribers"]').textContent,
          [...row.querySelectorAll('[data-testid]')].map((cell) => cell.dataset.testid).join(' ')]);""")]


def count_admin_requests(browser):
    """Counts the page's requests to /admin/ from now on (in `window.__adminRequests`)."""
    browser.driver.execute_script("""
        window.__adminRequests = 0;
        const original = window.fetch;
        window.fetch = (resource, options) => {
          if (String(resource).startsWith('/admin/')) window.__adminRequests += 1;
          return original(resource, options);
        };""")


def admin_requests(browser):
    return browser.driver.execute_script("return window.__adminRequests")


def dark_screenshot(browser, step):
    browser.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    try:
        return browser.screenshot(step)
    finally:
        browser.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_status_is_served_at_status_and_status_slash_under_the_csp_with_no_inline_code(status_daemon):
    html = (ROOT / "web" / "status" / "index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline <script>"
    assert "<style" not in html and not re.search(r"\sstyle=", html), "inline style"
    assert not re.search(r"\son[a-z]+=", html), "inline event handler"
    assert not re.search(r"(src|href)=\"(https?:)?//", html), "external resource"
    for path in ("/status", "/status/", "/status/index.html"):
        with urllib.request.urlopen(f"http://127.0.0.1:{status_daemon.port}{path}") as response:
            assert response.headers["content-type"].startswith("text/html"), path
            csp = response.headers["content-security-policy"]
            assert "script-src 'self'" in csp and "style-src 'self'" in csp and "connect-src 'self'" in csp
            assert response.read().decode() == html
    for name, kind in (("status.js", "text/javascript"), ("metrics-text.js", "text/javascript"), ("status.css", "text/css")):
        with urllib.request.urlopen(f"http://127.0.0.1:{status_daemon.port}/status/{name}") as response:
            assert response.headers["content-type"].startswith(kind), name


def test_plots_render_and_move_while_a_client_sends_actions(status_daemon, browsers):
    a, b = browsers
    for browser in (a, b):
        browser.driver.get("about:blank")
        browser.driver.get(url(status_daemon, "/status"))  # without the slash: absolute asset paths
    for browser in (a, b):
        missing = [t for t in TESTIDS if not browser.find_all(t)]
        assert not missing, f"[{browser.name}] missing data-testid: {missing}"
        browser.wait(lambda _: browser.attr("status-readiness", "data-ready") == "true", "readiness", 20)
        assert browser.text("status-readiness-text") == "Ready"
        assert browser.text("status-interval") == "0.5"
        # Two polls give the first rate; nobody acts yet, so it is zero.
        browser.wait(lambda _: points(browser, "actions") >= 1, "the first actions/s point", 20)
        assert value(browser, "actions") == 0 and value(browser, "connections") == 0
        assert browser.attr("status-version", "textContent").startswith("reactorhub ")  # hidden on a phone
        assert not browser.visible("status-error")

    load = Load(status_daemon, "doc/status-load")
    load.start()
    try:
        started = {browser.name: points(browser, "actions") for browser in (a, b)}
        for browser in (a, b):
            browser.wait(lambda _: (value(browser, "actions") or 0) > 0, "actions/s > 0 under load", 20)
            browser.wait(lambda _: points(browser, "actions") >= started[browser.name] + 4, "four more actions/s points", 30)
            browser.wait(lambda _: value(browser, "connections") == 1, "the load client's connection", 20)
            browser.wait(lambda _: (value(browser, "frames") or 0) > 0, "frames/s > 0 under load", 20)
            assert value(browser, "instances") >= 1
            for plot in PLOTS:
                count, vertices = drawn(browser, plot)
                assert count >= 2 and vertices == count, (plot, count, vertices)
            label = browser.attr("plot-actions", "aria-label")
            assert label.startswith("Actions per second over the last ten minutes: now "), label
            assert browser.text("value-actions") not in ("", "–", "0.00")
        a.screenshot("status-under-load")
        b.screenshot("status-under-load")
        dark_screenshot(a, "status-under-load-dark")
    finally:
        load.stop()
    assert load.acked > 0
    for browser in (a, b):
        browser.wait(lambda _: value(browser, "connections") == 0, "the load client gone", 20)
        browser.wait(lambda _: value(browser, "actions") == 0, "actions/s back to 0", 20)


def test_top_instances_by_subscribers_with_the_admin_token_in_session_storage(status_daemon, browsers):
    a, b = browsers
    members = [Member(status_daemon, address) for address, count in
               (("doc/top-a", 3), ("doc/top-b", 2), ("doc/top-c", 1)) for _ in range(count)]
    try:
        for browser in (a, b):
            browser.driver.get("about:blank")
            browser.driver.get(url(status_daemon))
            browser.wait(lambda _: points(browser, "connections") >= 1, "a first poll", 20)
            assert browser.text("top-message") == "Type the admin token to list the instances."
            assert not browser.visible("top-instances")
            assert browser.driver.execute_script("return sessionStorage.length") == 0

        count_admin_requests(a)
        a.find("admin-token").send_keys("not-the-token")
        a.find("admin-token-save").click()
        a.wait_text("top-message", "Admin API 401: the token is not admin.token.", 20)
        assert not a.visible("top-instances")
        # A refused token is not sent again at every poll.
        polled = points(a, "connections")
        a.wait(lambda _: points(a, "connections") >= polled + 3, "three more polls", 20)
        assert admin_requests(a) == 1
        assert a.text("top-message") == "Admin API 401: the token is not admin.token."

        token = a.find("admin-token")
        token.clear()
        token.send_keys(TOKEN)
        a.find("admin-token-save").click()
        a.wait(lambda _: len(top_rows(a)) >= 3, "the top instances", 20)
        rows = top_rows(a)
        assert [(address, count) for address, count, _ in rows[:3]] == [("doc/top-a", "3"), ("doc/top-b", "2"), ("doc/top-c", "1")]
        assert all(cells == " ".join(ROW_TESTIDS[1:]) for _, _, cells in rows)
        assert a.text("top-message") == f"The {len(rows)} with the most subscribers."
        assert re.fullmatch(r"\d+ in memory", a.text("top-total"))
        assert a.driver.execute_script("return sessionStorage.getItem('reactorhub.adminToken')") == TOKEN
        assert a.driver.execute_script("return localStorage.length") == 0
        a.screenshot("status-top-instances")

        # The list follows the subscribers: one of top-a's three leaves.
        members[0].close()
        a.wait(lambda _: top_rows(a)[:2] == [("doc/top-a", "2", " ".join(ROW_TESTIDS[1:])), ("doc/top-b", "2", " ".join(ROW_TESTIDS[1:]))],
               "top-a down to 2", 20)

        # The other session never had the token; a reload of this one keeps it (same tab).
        assert b.text("top-message") == "Type the admin token to list the instances."
        a.driver.refresh()
        a.wait(lambda _: len(top_rows(a)) >= 3, "the top instances after a reload", 20)
        assert a.attr("admin-token", "value") == TOKEN
        a.find("admin-token-forget").click()
        a.wait_text("top-message", "Type the admin token to list the instances.", 20)
        assert not a.visible("top-instances") and a.attr("admin-token", "value") == ""
        assert a.driver.execute_script("return sessionStorage.length") == 0
        b.screenshot("status-no-token")
    finally:
        for member in members:
            member.close()  # a second close of members[0] does nothing
