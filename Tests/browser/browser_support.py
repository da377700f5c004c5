"""Helpers of the browser suite: real `reactorhub` processes (as in Tests/e2e/conftest.py, plus
a restart on the same port) and headless Chromium sessions driven by Selenium. (Not named
conftest so that it cannot be confused with Tests/e2e/conftest.py when both suites run.)"""
import base64
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("REACTORHUB_BINARY", ROOT / ".build" / "debug" / "reactorhub"))
OUTPUT = pathlib.Path(os.environ.get("REACTORHUB_TEST_OUTPUT", ROOT / "test-output"))
SCREENSHOTS = OUTPUT / "screenshots"
CHROMIUM = os.environ.get("CHROMIUM_BINARY") or next(
    (p for p in ("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p)), None)
CHROMEDRIVER = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"

SESSION_STARTED = time.time()
DESKTOP = (1280, 1000)
PHONE = (390, 844)


class Daemon:
    """A daemon process with a config file; `restart()` starts a new process on the same port."""

    def __init__(self, config: dict, workdir: pathlib.Path, name: str, web_root: pathlib.Path = ROOT / "web"):
        self.web_root = web_root
        self.config_path = workdir / f"{name}.json"
        self.config_path.write_text(json.dumps(config))
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.log_path = OUTPUT / f"browser-{name}.log"
        self.log = open(self.log_path, "ab")
        self.port = 0
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [str(BINARY), "--config", str(self.config_path), "--port", str(self.port),
             "--web-root", str(self.web_root)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self.log,
        )
        line = self.process.stdout.readline().decode()
        if not line.startswith(("listening on http://", "listening on https://")):
            self.process.kill()
            raise RuntimeError(f"daemon did not start: {line!r}; see {self.log_path}")
        self.port = int(line.strip().rsplit(":", 1)[1])
        scheme = "https" if line.startswith("listening on https://") else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}/"

    def kill(self):
        """SIGKILL: no close frames, the clients see the connection drop (1006)."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def restart(self, attempts: int = 50):
        for _ in range(attempts):
            try:
                self.start()
                return
            except RuntimeError:
                time.sleep(0.1)  # the port may still be held for a moment
        raise RuntimeError(f"could not restart the daemon on port {self.port}")

    def stop(self, timeout: float = 10):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def daemon_config(counter_delay_ms=300, weather_latency_ms=100) -> dict:
    return {
        "logLevel": "info",
        "reactors": {"counter": {"delayMs": counter_delay_ms}, "weather": {"latencyMs": weather_latency_ms}},
    }


class Browser:
    """One headless Chromium session, with helpers keyed by data-testid."""

    def __init__(self, name: str, size, phone: bool = False, extra_arguments=()):
        if CHROMIUM is None:
            pytest.skip("no chromium binary")
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in (*extra_arguments, "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         "--no-first-run", "--disable-extensions", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync", "--disable-features=Translate,MediaRouter",
                         "--force-device-scale-factor=1", "--lang=en-US"):
            options.add_argument(argument)
        if phone:
            # A headless window is at least 500 px wide: emulate the phone's viewport instead.
            options.add_argument("--window-size=600,1000")
            options.add_experimental_option("mobileEmulation", {
                "deviceMetrics": {"width": size[0], "height": size[1], "pixelRatio": 1, "touch": True}})
        else:
            options.add_argument(f"--window-size={size[0]},{size[1]}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
        self.driver.set_script_timeout(30)
        self.name = name
        self.console = []  # every console entry seen, in order

    def open(self, daemon: Daemon, room: str):
        """A fresh load of the page in `room` (not a same-document hash change)."""
        self.driver.get("about:blank")
        self.driver.get(f"{daemon.url}#room={room}")
        self.wait_status("open")
        for kind in ("counter", "weather", "todo"):
            self.wait(lambda _: self.attr(f"version-{kind}", "data-version") is not None, f"{kind} state")

    # -- elements --
    def find(self, testid, root=None):
        return (root or self.driver).find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]')

    def find_all(self, testid, root=None):
        return (root or self.driver).find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]')

    def text(self, testid):
        return self.find(testid).text

    def attr(self, testid, name):
        return self.find(testid).get_attribute(name)

    def visible(self, testid):
        elements = self.find_all(testid)
        return bool(elements) and elements[0].is_displayed()

    def version(self, kind):
        value = self.attr(f"version-{kind}", "data-version")
        return None if value is None else int(value)

    def status(self):
        return self.attr("connection-status", "data-status")

    # -- waiting --
    # The page re-renders lists and cards from each state: an element found by one call can be
    # replaced before the next reads it. A predicate that meets a replaced (stale) or not yet
    # rendered element is asked again at the next poll instead of failing the wait.
    RETRIED = (NoSuchElementException, StaleElementReferenceException)

    def wait(self, predicate, what, timeout=5.0):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.02,
                                 ignored_exceptions=self.RETRIED).until(predicate)
        except TimeoutException as error:  # a readable message instead of a bare TimeoutException
            raise AssertionError(f"[{self.name}] timed out after {timeout}s waiting for {self._describe(what)}") from error
        except Exception as error:
            raise AssertionError(f"[{self.name}] {type(error).__name__} while waiting for {self._describe(what)}") from error

    @staticmethod
    def _describe(what):
        """`what`, or what it returns when it is a function (read once the wait has failed)."""
        if not callable(what):
            return what
        try:
            return what()
        except Exception as error:
            return f"(could not describe: {type(error).__name__})"

    def wait_text(self, testid, text, timeout=5.0):
        return self.wait(lambda _: self.text(testid) == text, lambda: f"{testid} == {text!r} (is {self.text(testid)!r})", timeout)

    def wait_visible(self, testid, visible=True, timeout=5.0):
        return self.wait(lambda _: self.visible(testid) == visible, f"{testid} {'visible' if visible else 'hidden'}", timeout)

    def wait_status(self, status, timeout=10.0):
        return self.wait(lambda _: self.status() == status, f"connection status {status!r}", timeout)

    # -- evidence --
    def screenshot(self, step: str):
        """The whole page (not only the viewport), as screenshots/<step>-<session>.png."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{step}-{self.name}.png"
        width, height = self.driver.execute_script(
            "return [document.documentElement.clientWidth, document.documentElement.scrollHeight]")
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def read_console(self):
        entries = self.driver.get_log("browser")
        self.console.extend(entries)
        return entries

    def quit(self):
        self.driver.quit()


# Chromium logs a failed WebSocket handshake as a console error, and no page script can prevent
# it; after one, the demo tries its HTTP fallback (GET /api/v1/kinds, docs/api-http.md), whose
# failure is logged too while the daemon is down. Tests that take the daemon down on purpose
# allow exactly these, for its port.
def websocket_failure(port: int):
    return re.compile(rf"WebSocket connection to 'ws://127\.0\.0\.1:{port}/ws' failed"
                      rf"|127\.0\.0\.1:{port}/api/v1/kinds - Failed to load resource")
