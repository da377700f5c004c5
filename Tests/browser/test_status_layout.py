"""The status page read by a person (web/status/): each plot has a value axis with its units
and a time axis, the instances table wraps an address only between words (after its slash,
or after a dash or dot of the id), and a phone that scrolled the readiness pill out of view
still sees a banner pinned to the screen when the daemon cannot be reached, gone once it is
back. Desktop (A) and phone (B) sessions of conftest.py."""
import re

import pytest

from browser_support import daemon_config
from test_status import Member, points, url, value

PLOTS = {
    "connections": ("", "connections"),
    "instances": ("", "instances in memory"),
    "actions": ("/s", "actions per second"),
    "frames": ("/s", "patch frames per second"),
    "queued": (" B", "bytes waiting in outboxes"),
}
CLOCK = re.compile(r"^\d\d:\d\d:\d\d$")
# A long id with dashes and dots (at most 64 characters): a phone's column cannot hold it.
LONG_ADDRESS = "doc/quarterly-planning.review-board-north-east-region-2026-draft"


@pytest.fixture(scope="module")
def layout_daemon(daemon_factory):
    return daemon_factory(daemon_config(), "status-layout")


@pytest.fixture(scope="module")
def admin_layout_daemon(daemon_factory):
    config = daemon_config()
    config["admin"] = {"token": "layout-admin"}
    return daemon_factory(config, "status-layout-admin")


@pytest.fixture
def allowed_console_errors():
    # Fetches of a daemon that was killed on purpose fail; Chromium logs each one.
    return [re.compile(r"Failed to load resource: net::ERR_CONNECTION_REFUSED"),
            re.compile(r"/(metrics|readyz|admin/instances\?limit=1000) - Failed to load resource")]


def axes(browser, plot):
    """(y tick texts, x tick texts, units text) of a plot, read at once."""
    return tuple(browser.driver.execute_script("""
        const texts = (testid) => [...document.querySelector(`[data-testid="${testid}"]`).children].map((e) => e.textContent);
        const key = arguments[0];
        return [texts(`axis-y-${key}`), texts(`axis-x-${key}`),
                document.querySelector(`[data-testid="axis-units-${key}"]`).textContent];""", plot))


def test_every_plot_has_a_value_axis_with_units_and_a_time_axis(layout_daemon, browsers):
    member = Member(layout_daemon, "doc/status-axes")
    try:
        for browser in browsers:
            browser.driver.get("about:blank")
            browser.driver.get(url(layout_daemon))
            browser.wait(lambda _: points(browser, "actions") >= 2 and value(browser, "connections") == 1, "two polls", 20)
            for plot, (suffix, unit) in PLOTS.items():
                y_ticks, x_ticks, units = axes(browser, plot)
                assert units == f"↑ {unit} · → time of day, last ten minutes"
                assert len(y_ticks) == 3 and y_ticks[2] == f"0{suffix}", (plot, y_ticks)
                assert all(tick.endswith(suffix) for tick in y_ticks), (plot, y_ticks)
                assert len(x_ticks) == 3 and all(CLOCK.match(tick) for tick in x_ticks), (plot, x_ticks)
                assert x_ticks == sorted(x_ticks), (plot, x_ticks)
            # One connection: the connections axis tops at 2 (the next round number above 1.1).
            assert axes(browser, "connections")[0] == ["2", "1", "0"]
            # Each axis label sits beside its plot: left of it, and below it.
            boxes = browser.driver.execute_script("""
                const box = (testid) => document.querySelector(`[data-testid="${testid}"]`).getBoundingClientRect();
                const plot = box('plot-connections'), y = box('axis-y-connections'), x = box('axis-x-connections');
                return [y.right <= plot.left + 0.5, Math.abs(y.top - plot.top) < 12, Math.abs(y.bottom - plot.bottom) < 12,
                        x.top >= plot.bottom - 0.5, Math.abs(x.left - plot.left) < 1, Math.abs(x.right - plot.right) < 1];""")
            assert boxes == [True] * 6, boxes
        browsers[0].screenshot("status-axes")
        browsers[1].screenshot("status-axes")
    finally:
        member.close()


def line_breaks(browser, address):
    """The characters after which the address cell's text wraps (its lines, measured)."""
    return browser.driver.execute_script("""
        const row = [...document.querySelectorAll('[data-testid="top-instance"]')].find((r) => r.dataset.address === arguments[0]);
        const cell = row.querySelector('[data-testid="top-instance-address"]');
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        const characters = [];
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (let i = 0; i < node.length; i += 1) {
            const range = document.createRange();
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            characters.push([node.data[i], range.getBoundingClientRect().top]);
          }
        }
        const breaks = [];
        for (let i = 1; i < characters.length; i += 1) {
          if (characters[i][1] > characters[i - 1][1] + 2) breaks.push(characters[i - 1][0]);
        }
        return [breaks, cell.textContent];""", address)


def test_an_instance_address_wraps_only_between_words_on_a_phone(admin_layout_daemon, browsers):
    _, phone = browsers
    admin_daemon = admin_layout_daemon
    members = [Member(admin_daemon, LONG_ADDRESS), Member(admin_daemon, "counter/x")]
    try:
        phone.driver.get("about:blank")
        phone.driver.get(url(admin_daemon))
        phone.wait(lambda _: points(phone, "connections") >= 1, "a first poll", 20)
        phone.driver.execute_script("sessionStorage.setItem('reactorhub.adminToken', 'layout-admin')")
        phone.driver.refresh()
        phone.wait(lambda _: phone.driver.execute_script(
            "return document.querySelectorAll('[data-testid=\"top-instance\"]').length") >= 2, "the top instances", 20)
        breaks, text = line_breaks(phone, LONG_ADDRESS)
        assert text == LONG_ADDRESS
        assert breaks, "the phone's column holds the whole address: the test shows nothing"
        assert set(breaks) <= {"/", "-", "."}, breaks
        phone.screenshot("status-long-address")
    finally:
        for member in members:
            member.close()



def test_a_phone_that_scrolled_down_sees_a_banner_when_the_daemon_is_lost(daemon_factory, browsers):
    daemon = daemon_factory(daemon_config(), "status-offline")
    _, phone = browsers
    phone.driver.get("about:blank")
    phone.driver.get(url(daemon))
    phone.wait(lambda _: points(phone, "connections") >= 1, "a first poll", 20)
    assert not phone.visible("status-offline")
    phone.driver.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
    pill_in_view = phone.driver.execute_script(
        "const r = document.querySelector('[data-testid=\"status-readiness\"]').getBoundingClientRect(); return r.bottom > 0")
    assert not pill_in_view, "the readiness pill is still on screen: the test shows nothing"

    daemon.kill()
    phone.wait_visible("status-offline", timeout=20)
    text = phone.text("status-offline")
    assert re.fullmatch(r"Connection to the daemon lost at \d\d:\d\d:\d\d: retrying every 0\.5 s\.", text), text
    on_screen = phone.driver.execute_script("""
        const r = document.querySelector('[data-testid="status-offline"]').getBoundingClientRect();
        return [r.top, r.bottom <= window.innerHeight, r.width >= window.innerWidth - 1, r.height > 20];""")
    assert on_screen == [0, True, True, True], on_screen
    assert phone.text("status-readiness-text") == "Unreachable"
    phone.screenshot("status-offline-banner")

    daemon.restart()
    phone.wait_visible("status-offline", False, timeout=20)
    phone.wait(lambda _: phone.text("status-readiness-text") == "Ready", "ready again", 20)
