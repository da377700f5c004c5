"""Killing the daemon and starting a new one on the same port: both sessions show that they
are disconnected and retrying, then come back by themselves with the server's state."""
import time
import uuid

from browser_support import daemon_config, websocket_failure


def test_daemon_killed_and_restarted_on_the_same_port(daemon_factory, browsers, allowed_console_errors):
    a, b = browsers
    daemon = daemon_factory(daemon_config(counter_delay_ms=100), "restart")
    # While the daemon is down, each reconnect attempt is logged by Chromium as a console error.
    allowed_console_errors.append(websocket_failure(daemon.port))
    room = f"restart-{uuid.uuid4().hex[:8]}"
    a.open(daemon, room)
    b.open(daemon, room)
    a.find("counter-plus").click()
    for browser in (a, b):
        browser.wait_text("counter-value", "1")
        browser.wait(lambda _: browser.version("counter") == 3, "version 3")
    old_epoch = a.attr("version-counter", "title")
    a.screenshot("reconnect-01-before")

    port = daemon.port
    daemon.kill()
    for browser in (a, b):
        browser.wait_status("reconnecting", timeout=5)
        assert browser.text("connection-status").startswith("Reconnecting")
        assert browser.visible("reconnect-now")
        assert not browser.find("counter-plus").is_enabled(), "actions are disabled while disconnected"
        assert "is-stale" in browser.find("counter-card").get_attribute("class")
        assert browser.text("counter-value") == "1", "the last known state stays on screen"
        assert browser.driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"), \
            "the status and its Retry button fit the width"
        browser.screenshot("reconnect-02-disconnected")
    time.sleep(0.6)  # let a few attempts fail against the closed port

    daemon.restart()
    assert daemon.port == port
    started = time.monotonic()
    for browser in (a, b):
        browser.wait_status("open", timeout=15)
    reconnect_s = time.monotonic() - started
    for browser in (a, b):
        # A new process with memory persistence: a new epoch, so the resume is answered by a snapshot.
        browser.wait(lambda _: browser.version("counter") == 0, "the new daemon's state")
        assert browser.text("counter-value") == "0"
        assert browser.attr("version-counter", "title") != old_epoch
        assert browser.text("connection-status") == "Connected"
        assert not browser.visible("reconnect-now")
        assert "is-stale" not in browser.find("counter-card").get_attribute("class")
        browser.wait(lambda _: browser.find("counter-plus").is_enabled(), "actions enabled again")
        browser.screenshot("reconnect-03-recovered")
    # and it works again, in both
    b.find("counter-plus").click()
    for browser in (a, b):
        browser.wait_text("counter-value", "1")
        browser.wait(lambda _: browser.text("counter-toast") == "increased!", "the toast")
    a.screenshot("reconnect-04-working-again")
    print(f"reconnected {reconnect_s:.2f}s after the restart")


def test_retry_now_reconnects_without_waiting_for_the_backoff(daemon_factory, browsers, allowed_console_errors):
    a, _ = browsers
    daemon = daemon_factory(daemon_config(), "retry-now")
    allowed_console_errors.append(websocket_failure(daemon.port))
    a.open(daemon, f"retry-{uuid.uuid4().hex[:8]}")
    daemon.kill()
    a.wait_status("reconnecting")
    # let the backoff grow past a few seconds
    a.wait(lambda _: int(a.driver.execute_script("return window.reactorhubDemo.client.attempt")) >= 5,
           "five failed attempts", timeout=15)
    daemon.restart()
    a.find("reconnect-now").click()
    a.wait_status("open", timeout=2)
    a.wait(lambda _: a.version("todo") == 0, "the todo state")
