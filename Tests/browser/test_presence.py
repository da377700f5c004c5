"""Presence on the demo page, in two independent browser sessions (A: desktop, B: phone) on
the same room of a real daemon: each sees the other in the avatar row, an item's title field
focused in one shows who edits it in the other, and a page that goes away leaves the other's
row. Every step waits for what the page shows (presence broadcasts leave the server up to
30 ms after a change; a busy machine can take much longer), never for a fixed time."""
import re
import uuid

from selenium.webdriver.common.keys import Keys

from browser_support import daemon_config

PRESENCE_TIMEOUT = 15.0

AVATARS = """
return [...document.querySelectorAll('[data-testid="presence-avatar"]')].map((el) => ({
  session: el.dataset.session,
  self: el.dataset.self === 'true',
  letters: el.querySelector('[aria-hidden="true"]').textContent,
  label: el.querySelector('.sr-only').textContent,
  hue: (el.className.match(/avatar-hue-(\\d)/) || [])[1] ?? null,
}));
"""

# The editing marker of each item: [id, shown, sessions, text] (textContent: the phone hides the
# words visually and keeps them for screen readers).
MARKERS = """
return [...document.querySelectorAll('[data-testid="todo-item"]')].map((li) => {
  const marker = li.querySelector('[data-testid="todo-editing"]');
  return [li.dataset.id, !marker.hidden, [...marker.querySelectorAll('[data-session]')].map((a) => a.dataset.session),
          marker.hidden ? '' : marker.querySelector('.todo-editing-text').textContent];
});
"""


def room(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def session(browser):
    return browser.driver.execute_script("return window.reactorhubDemo.client.hello.session")


def avatars(browser):
    return browser.driver.execute_script(AVATARS)


def markers(browser):
    return [tuple(row) for row in browser.driver.execute_script(MARKERS)]


def initials(session_id):
    """The letters of an anonymous avatar: the last two digits of the session."""
    return re.sub(r"\D+", "", session_id)[-2:]


def wait_row(browser, expected, what):
    """Waits until the avatar row lists `expected` [(session, self)] in that order."""
    browser.wait(lambda _: [(a["session"], a["self"]) for a in avatars(browser)] == expected,
                 f"the avatar row {expected} ({what}; is {avatars(browser)})", timeout=PRESENCE_TIMEOUT)


def test_two_sessions_see_each_other_who_edits_which_item_and_who_left(daemon, browsers):
    a, b = browsers
    name = room("presence")
    a.open(daemon, name)
    b.open(daemon, name)
    sa, sb = session(a), session(b)
    assert sa != sb

    # Each row: the page itself first, then the other; the count of both.
    for me, mine, theirs in ((a, sa, sb), (b, sb, sa)):
        wait_row(me, [(mine, True), (theirs, False)], "both here")
        me.wait(lambda _: me.text("presence-count") == "2 here", "the count 2", timeout=PRESENCE_TIMEOUT)
        own, other = avatars(me)
        assert own["label"] == f"You (guest {mine})"
        assert other["letters"] == initials(theirs)
        assert other["label"] == f"guest {theirs}"
        assert other["hue"] is not None
    assert avatars(a)[1]["hue"] == avatars(b)[0]["hue"], "B's colour is the same on both pages"
    assert avatars(b)[1]["hue"] == avatars(a)[0]["hue"], "A's colour is the same on both pages"
    assert a.attr("presence", "aria-label") == "Who is in this room"
    a.screenshot("presence-01-both-here")
    b.screenshot("presence-01-both-here")

    a.find("todo-new").send_keys("Shared item\n")
    a.find("todo-new").send_keys("Another item\n")
    for browser in (a, b):
        browser.wait(lambda _: len(markers(browser)) == 2, "the two items")
    first, second = [row[0] for row in markers(a)]
    assert [row[0] for row in markers(b)] == [first, second]
    assert markers(b) == [(first, False, [], ""), (second, False, [], "")]

    # A's title field of the first item has the focus: B sees A editing it, A sees no marker of itself.
    a.find("todo-rename", a.find_all("todo-item")[0]).click()
    assert a.driver.switch_to.active_element == a.find("todo-rename-input")
    b.wait(lambda _: markers(b) == [(first, True, [sa], f"guest {sa} is editing"), (second, False, [], "")],
           f"A's marker on the first item (is {markers(b)})", timeout=PRESENCE_TIMEOUT)
    assert "is-edited-elsewhere" in b.find_all("todo-item")[0].get_attribute("class")
    assert markers(a) == [(first, False, [], ""), (second, False, [], "")]
    assert b.driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"), \
        "the marker fits the phone's width"
    b.screenshot("presence-02-a-editing")
    a.screenshot("presence-02-a-editing")

    # The field loses the focus (Escape cancels the rename): the marker goes.
    a.find("todo-rename-input").send_keys(Keys.ESCAPE)
    b.wait(lambda _: markers(b) == [(first, False, [], ""), (second, False, [], "")],
           f"no marker after A's blur (is {markers(b)})", timeout=PRESENCE_TIMEOUT)

    # B edits the second item, A sees it; then B's page goes away.
    b.find("todo-rename", b.find_all("todo-item")[1]).click()
    a.wait(lambda _: markers(a) == [(first, False, [], ""), (second, True, [sb], f"guest {sb} is editing")],
           f"B's marker on the second item (is {markers(a)})", timeout=PRESENCE_TIMEOUT)
    words = a.find_all("todo-item")[1].find_element("css selector", '[data-testid="todo-editing"] .todo-editing-text')
    assert words.is_displayed() and words.text.endswith("editing"), "the desktop shows the word"
    assert a.driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    a.screenshot("presence-03-b-editing")

    # B's page goes away. Chromium keeps it, sockets open, in its back/forward cache: the
    # client closes the connection on pagehide, so that B leaves the room all the same.
    b.driver.get("about:blank")
    wait_row(a, [(sa, True)], "B gone")
    a.wait(lambda _: a.text("presence-count") == "1 here", "the count 1", timeout=PRESENCE_TIMEOUT)
    a.wait(lambda _: markers(a) == [(first, False, [], ""), (second, False, [], "")],
           f"B's marker gone (is {markers(a)})", timeout=PRESENCE_TIMEOUT)
    a.screenshot("presence-04-b-left")

    # Back to the page (restored from that cache, or loaded again): B connects again, as a new session.
    b.driver.back()
    b.wait(lambda _: (avatars(b) or [{}])[0].get("self") and avatars(b)[0]["session"] != sb,
           "B's own avatar with a new session", timeout=PRESENCE_TIMEOUT)
    sb2 = session(b)
    wait_row(a, [(sa, True), (sb2, False)], "B back")
    wait_row(b, [(sb2, True), (sa, False)], "A seen by the returning B")
    a.wait(lambda _: a.text("presence-count") == "2 here", "the count 2 again", timeout=PRESENCE_TIMEOUT)


def test_a_new_room_starts_a_new_row(daemon, browsers):
    a, b = browsers
    first, second = room("presence-a"), room("presence-b")
    a.open(daemon, first)
    b.open(daemon, first)
    sa, sb = session(a), session(b)
    wait_row(a, [(sa, True), (sb, False)], "both in the first room")
    a.driver.execute_script(f"window.reactorhubDemo.setRoom('{second}')")
    a.wait(lambda _: a.version("todo") == 0 and a.attr("room-name", "value") == second, "the second room")
    wait_row(a, [(sa, True)], "alone in the second room")
    a.wait(lambda _: a.text("presence-count") == "1 here", "the count 1", timeout=PRESENCE_TIMEOUT)
    wait_row(b, [(sb, True)], "A left the first room")


def test_past_max_listed_the_row_shows_a_count_and_lists_again_below(daemon_factory, browsers):
    a, b = browsers
    daemon = daemon_factory({**daemon_config(), "presence": {"maxListed": 1}}, "presence-count")
    name = room("presence-count")
    a.open(daemon, name)
    b.open(daemon, name)
    sa = session(a)
    # Two entries, one listed at most: snapshots and broadcasts carry only the count.
    for browser in (a, b):
        browser.wait(lambda _: browser.text("presence-count") == "2 here", "the count 2", timeout=PRESENCE_TIMEOUT)
        assert [(x["session"], x["self"]) for x in avatars(browser)] == [(session(browser), True)]
        assert browser.text("presence-more") == "+1"
        assert browser.attr("presence-more", "aria-label") == "1 more"
    b.driver.get("about:blank")
    # Down to one: listed again (the client joins afresh for the whole map).
    wait_row(a, [(sa, True)], "A alone")
    a.wait(lambda _: a.text("presence-count") == "1 here", "the count 1", timeout=PRESENCE_TIMEOUT)
    assert a.find_all("presence-more") == []
