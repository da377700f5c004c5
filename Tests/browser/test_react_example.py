"""Examples/react-todo: the React 18 page on reactorhub/react, built offline with Debian's esbuild
and React and served by the daemon, in both browser sessions: an add shows at once in the page
that made it (marked pending while the server has not confirmed it) and reaches the other page;
a toggle likewise; the sync status and who is here are rendered by the hooks."""
import subprocess
import uuid

import pytest

from browser_support import BINARY, ROOT, Daemon

EXAMPLE = ROOT / "Examples" / "react-todo"

ITEMS = """
return [...document.querySelectorAll('[data-testid="item"]')].map((li) => ({
  title: li.querySelector('[data-testid="title"]').textContent,
  done: li.querySelector('[data-testid="toggle"]').checked,
  pending: li.dataset.pending === 'true',
}));
"""


@pytest.fixture(scope="module")
def react_daemon(workdir):
    if not BINARY.exists():
        pytest.skip(f"no daemon binary at {BINARY} (set REACTORHUB_BINARY)")
    subprocess.run([str(EXAMPLE / "build.sh")], check=True, timeout=120)
    daemon = Daemon({"logLevel": "info"}, workdir, "react-todo", web_root=EXAMPLE / "web")
    yield daemon
    daemon.stop()


def open_example(browser, daemon, room):
    browser.driver.get("about:blank")
    browser.driver.get(f"{daemon.url}#room={room}")
    browser.wait(lambda _: browser.find_all("sync-status") and browser.text("sync-status") == "open", "the page connected", 15)
    browser.wait(lambda _: browser.find_all("version") and browser.text("version") != "", "the todo state", 15)


def test_the_react_example_shares_a_todo_list_between_two_pages(react_daemon, browsers):
    a, b = browsers
    room = f"react-{uuid.uuid4().hex[:8]}"
    try:
        for browser in (a, b):
            open_example(browser, react_daemon, room)
        both_pages_share_the_list(a, b)
    finally:
        for browser in (a, b):  # before the daemon stops: a page left open would try to reconnect
            browser.driver.get("about:blank")


def both_pages_share_the_list(a, b):
    # Each page sets a presence when its field has the focus: both count two.
    for browser in (a, b):
        browser.find("new").click()
    for browser in (a, b):
        browser.wait(lambda _: browser.text("here") == "2", "two here")

    a.find("new").send_keys("Buy milk")
    a.find("add").click()
    b.wait(lambda _: b.driver.execute_script(ITEMS) == [{"title": "Buy milk", "done": False, "pending": False}], "the add in B")
    a.wait(lambda _: a.driver.execute_script(ITEMS) == [{"title": "Buy milk", "done": False, "pending": False}], "the add confirmed in A")
    assert a.text("sync-pending") == "0"
    a.screenshot("react-01-added")

    b.find("toggle").click()
    a.wait(lambda _: a.driver.execute_script(ITEMS) == [{"title": "Buy milk", "done": True, "pending": False}], "the toggle in A")
    b.wait(lambda _: b.driver.execute_script(ITEMS)[0]["pending"] is False, "the toggle confirmed in B")
    assert int(a.text("version")) == int(b.text("version")) == 2
    b.screenshot("react-02-toggled")
