"""Fixtures for the browser suite: daemons, two browser sessions, and a check of the browser
console after every test. The helpers are in browser_support.py."""
import json
import pathlib
import shutil
import tempfile

import pytest

from browser_support import BINARY, DESKTOP, OUTPUT, PHONE, SESSION_STARTED, Browser, Daemon, daemon_config


@pytest.fixture(scope="session")
def workdir():
    path = pathlib.Path(tempfile.mkdtemp(prefix="rh-browser-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def daemon_factory(workdir):
    if not BINARY.exists():
        pytest.skip(f"no daemon binary at {BINARY} (set REACTORHUB_BINARY)")
    started = []

    def start(config: dict, name: str) -> Daemon:
        daemon = Daemon(config, workdir, name)
        started.append(daemon)
        return daemon

    yield start
    for daemon in started:
        daemon.stop()


@pytest.fixture(scope="session")
def daemon(daemon_factory):
    """The shared daemon: counter delayMs 300, weather latencyMs 100, memory persistence."""
    return daemon_factory(daemon_config(), "shared")


@pytest.fixture(scope="session")
def browsers():
    """Two independent sessions: A on a desktop-sized window, B on a phone-sized one."""
    a = Browser("A", DESKTOP)
    try:
        b = Browser("B", PHONE, phone=True)
    except Exception:
        a.quit()
        raise
    yield a, b
    a.quit()
    b.quit()


@pytest.fixture
def allowed_console_errors():
    """Patterns of SEVERE console entries a test expects (see websocket_failure)."""
    return []


@pytest.fixture(autouse=True)
def no_console_errors(request, allowed_console_errors):
    """After each test that used the browsers: no SEVERE console entry, except those allowed."""
    yield
    if "browsers" not in request.fixturenames:
        return
    a_b = request.getfixturevalue("browsers")
    problems = []
    for browser in a_b:
        for entry in browser.read_console():
            if entry.get("level") != "SEVERE":
                continue
            if any(pattern.search(entry.get("message", "")) for pattern in allowed_console_errors):
                continue
            problems.append(f"[{browser.name}] {entry.get('message')}")
    assert not problems, "browser console errors:\n" + "\n".join(problems)


def pytest_terminal_summary(terminalreporter):
    """Prints the browser measurements (written by test_metrics.py) at the end of the run."""
    path = OUTPUT / "browser-metrics.json"
    if not path.exists() or path.stat().st_mtime < SESSION_STARTED:
        return
    metrics = json.loads(path.read_text())
    terminalreporter.section("browser metrics (not asserted)")
    write = terminalreporter.write_line
    load = metrics["page_load"]
    write(f"page load over {load['loads']} loads, median ms: domContentLoaded {load['dom_content_loaded']['median_ms']}, "
          f"load {load['load']['median_ms']}, all three reactors rendered "
          f"{load['first_state_of_all_three_reactors']['median_ms']}")
    for key in ("counter_click_delayMs_300", "counter_click_delayMs_0"):
        m = metrics[key]
        parts = ", ".join(f"{name} {m[name]['median_ms']} (p90 {m[name]['p90_ms']})" for name in (
            "first_patch_frame_to_raf", "value_patch_frame_to_raf", "value_patch_frame_to_after_paint",
            "click_to_first_patch_frame", "click_to_value_raf"))
        write(f"{key}, {m['clicks']} clicks, median ms: {parts}")
    write(f"full numbers and method: {path}")
