"""The demo page itself: served under the daemon's CSP with no inline code, every data-testid
of docs/web-client.md present, accessible names, a clean console, usable on a phone and a desktop."""
import re
import urllib.request
import uuid

from browser_support import ROOT

TESTIDS = [
    "room-form", "room-name", "room-join", "room-help", "connection-status", "connection-status-text",
    "reconnect-now", "server-info", "presence", "presence-avatars", "presence-count",
    "counter-card", "counter-value", "counter-plus", "counter-minus", "counter-spinner", "counter-toast",
    "counter-error", "version-counter",
    "weather-panel", "weather-form", "weather-city", "weather-search", "weather-loading", "weather-error",
    "weather-empty", "weather-card", "weather-icon", "weather-card-city", "weather-card-temperature",
    "weather-card-condition", "weather-card-humidity", "version-weather",
    "todo-panel", "todo-form", "todo-new", "todo-add", "todo-error", "todo-empty", "todo-list", "todo-count",
    "todo-clear", "version-todo",
    "frame-log", "frame-log-toggle", "frame-log-count", "frame-log-pause", "frame-log-clear", "frame-log-list",
]
ITEM_TESTIDS = ["todo-toggle", "todo-title", "todo-rename", "todo-up", "todo-down", "todo-remove", "todo-editing"]
# What a page sends and receives for its presence in todo/<room>: its own (acked) and the
# broadcasts of everyone's, coalesced by the server (so one or more of those).
PRESENCE_FRAMES = {("out", "presence"), ("in", "ack"), ("in", "presence")}


def room(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_static_files_have_no_inline_code_and_are_served_with_the_csp(daemon):
    html = (ROOT / "web" / "index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline <script>"
    assert "<style" not in html and not re.search(r"\sstyle=", html), "inline style"
    assert not re.search(r"\son[a-z]+=", html), "inline event handler"
    assert not re.search(r"(src|href)=\"(https?:)?//", html), "external resource"
    with urllib.request.urlopen(daemon.url) as response:
        csp = response.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "style-src 'self'" in csp
        assert response.headers["content-type"].startswith("text/html")
    for name, kind in (("reactorhub.js", "text/javascript"), ("app.js", "text/javascript"),
                       ("styles.css", "text/css"), ("favicon.svg", "image/svg+xml")):
        with urllib.request.urlopen(daemon.url + name) as response:
            assert response.headers["content-type"].startswith(kind), name


def test_page_loads_synced_with_every_testid_and_a_clean_console(daemon, browsers):
    a, b = browsers
    name = room("page")
    a.open(daemon, name)
    b.open(daemon, name)
    for browser in (a, b):
        missing = [t for t in TESTIDS if not browser.find_all(t)]
        assert not missing, f"[{browser.name}] missing data-testid: {missing}"
        assert browser.text("connection-status") == "Connected"
        assert browser.text("counter-value") == "0"
        assert browser.version("counter") == 0 and browser.version("weather") == 0 and browser.version("todo") == 0
        assert browser.attr("room-name", "value") == name
        assert browser.visible("weather-empty") and browser.visible("todo-empty")
        assert not browser.visible("counter-spinner") and not browser.visible("weather-card")
        assert browser.text("server-info").startswith("reactorhub/")
        assert browser.driver.title == f"{name} · ReactorHub demo"
        # both are in the room (each page set its presence once it joined todo/<room>)
        browser.wait(lambda _: browser.text("presence-count") == "2 here", "both in the room", timeout=15)
        # the log has the hello, three joins and three snapshots, and the presence frames
        browser.find("frame-log-toggle").click()
        def logged():
            return browser.driver.execute_script(
                "return [...document.querySelectorAll('[data-testid=frame-log-entry]')].map(e => [e.dataset.direction, e.dataset.type])")
        browser.wait(lambda _: ["in", "ack"] in logged(), "the ack of the page's presence", timeout=15)
        kinds = [tuple(kind) for kind in logged()]
        assert sorted(k for k in kinds if k not in PRESENCE_FRAMES) == sorted(
            [("in", "hello")] + [("out", "join")] * 3 + [("in", "snapshot")] * 3), kinds
        assert kinds.count(("out", "presence")) == 1 and kinds.count(("in", "ack")) == 1, kinds
        assert kinds.count(("in", "presence")) >= 1, kinds
        browser.screenshot("page-01-loaded")
        browser.find("frame-log-toggle").click()
    # the phone layout has no horizontal scrolling; the desktop one puts the three cards side by side
    assert b.driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    assert b.driver.execute_script("return window.innerWidth") == 390
    tops = [a.find(t).rect["y"] for t in ("counter-card", "weather-panel", "todo-panel")]
    assert max(tops) - min(tops) < 2, tops
    xs = [b.find(t).rect["x"] for t in ("counter-card", "weather-panel", "todo-panel")]
    assert max(xs) - min(xs) < 2, "on a phone the cards stack"


def test_controls_have_accessible_names(daemon, browsers):
    a, _ = browsers
    a.open(daemon, room("a11y"))
    a.find("todo-new").send_keys("Check labels")
    a.find("todo-add").click()
    a.wait(lambda _: len(a.find_all("todo-item")) == 1, "the item")
    unnamed = a.driver.execute_script("""
        const name = (el) => (el.getAttribute('aria-label') || (el.labels && [...el.labels].map(l => l.textContent).join(' ')) || el.textContent || '').trim();
        return [...document.querySelectorAll('button, input, output, [role=status], [role=alert]')]
          .filter((el) => el.getClientRects().length && !name(el) && el.type !== 'search' && el.getAttribute('role') !== 'alert')
          .map((el) => el.outerHTML.slice(0, 120));
    """)
    assert unnamed == [], unnamed
    assert a.driver.execute_script(
        "return [...document.querySelectorAll('input')].every(i => i.labels.length || i.getAttribute('aria-label'))")
    assert a.driver.execute_script("return document.documentElement.lang") == "en"


def test_room_from_the_hash_and_from_the_room_field(daemon, browsers):
    a, b = browsers
    first, second = room("roomA"), room("roomB")
    a.open(daemon, first)
    b.open(daemon, first)
    a.find("counter-plus").click()
    a.wait_text("counter-value", "1")
    b.wait_text("counter-value", "1")
    field = a.find("room-name")
    field.clear()
    field.send_keys("not a room!")
    a.find("room-join").click()
    assert a.find("room-name").get_attribute("aria-invalid") == "true"
    assert "letters, digits" in a.text("room-help")
    field.clear()
    field.send_keys(second)
    a.find("room-join").click()
    a.wait(lambda d: d.execute_script("return location.hash") == f"#room={second}", "the hash")
    a.wait(lambda _: a.version("counter") == 0, "the new room's counter")
    assert a.text("counter-value") == "0"
    a.screenshot("page-02-other-room")
    # the other session stays in the first room and no longer hears from A's clicks
    a.find("counter-plus").click()
    a.wait_text("counter-value", "1")
    assert b.text("counter-value") == "1" and b.version("counter") == 3
    # the browser's back button returns to the first room
    a.driver.back()
    a.wait(lambda _: a.attr("room-name", "value") == first, "back to the first room")
    a.wait(lambda _: a.version("counter") == 3, "the first room's state")
    assert a.text("counter-value") == "1"
