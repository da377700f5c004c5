"""Helpers of the operations suites (test_metrics.py, test_admin.py): HTTP requests to the
daemon, a parser of the Prometheus text format, and a real Prometheus server (Debian's
`prometheus` package) scraping a daemon on loopback."""
from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request


# The e2e conftest's helpers, loaded under a name of their own: when the e2e and browser
# suites run in one pytest session, `from conftest import …` may find the browser suite's.
_spec = importlib.util.spec_from_file_location("e2e_conftest", pathlib.Path(__file__).with_name("conftest.py"))
e2e_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(e2e_conftest)
base_config = e2e_conftest.base_config

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUTPUT = pathlib.Path(os.environ.get("REACTORHUB_TEST_OUTPUT", ROOT / "test-output"))
PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
RULES = ROOT / "docs" / "prometheus" / "reactorhub-rules.yml"


# ---------------------------------------------------------------------------------------
# HTTP
# ---------------------------------------------------------------------------------------

class Response:
    def __init__(self, status: int, headers, body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode()

    def json(self):
        return json.loads(self.body)


def http(port: int, path: str, method: str = "GET", token: str | None = None, body=None, timeout: float = 30,
         headers: dict | None = None) -> Response:
    """One request to the daemon on 127.0.0.1:`port`; any status is returned, none raised."""
    headers = dict(headers or {})
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Response(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return Response(error.code, error.headers, error.read())


# ---------------------------------------------------------------------------------------
# The text format
# ---------------------------------------------------------------------------------------

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


class Scrape:
    """One parsed exposition: samples by (name, sorted labels), and each family's TYPE."""

    def __init__(self, text: str):
        self.text = text
        self.samples: dict[tuple[str, tuple], float] = {}
        self.types: dict[str, str] = {}
        self.helps: dict[str, str] = {}
        for line in text.splitlines():
            if line.startswith("# TYPE "):
                _, _, name, kind = line.split(" ", 3)
                self.types[name] = kind
            elif line.startswith("# HELP "):
                _, _, name, help_text = line.split(" ", 3)
                self.helps[name] = help_text
            elif line and not line.startswith("#"):
                match = SAMPLE.match(line)
                assert match, f"not a sample line: {line!r}"
                name, labels, value = match.groups()
                key = (name, tuple(sorted(LABEL.findall(labels or ""))))
                assert key not in self.samples, f"sample twice: {line!r}"
                self.samples[key] = float(value)

    def value(self, name: str, **labels) -> float:
        key = (name, tuple(sorted(labels.items())))
        assert key in self.samples, f"no sample {name}{labels} in the scrape"
        return self.samples[key]

    def family(self, name: str) -> dict[tuple, float]:
        """The samples of `name` (exactly that name), by their labels."""
        return {labels: value for (sample, labels), value in self.samples.items() if sample == name}

    def names(self) -> set[str]:
        return {name for name, _ in self.samples}


def scrape(port: int) -> Scrape:
    response = http(port, "/metrics")
    assert response.status == 200, response.text
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return Scrape(response.text)


def labels(**pairs) -> tuple:
    return tuple(sorted(pairs.items()))


def wait_until(predicate, timeout: float, what: str, interval: float = 0.05):
    """Polls `predicate` until it returns something truthy (returned), or fails naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


# ---------------------------------------------------------------------------------------
# Prometheus
# ---------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Prometheus:
    """A Prometheus server on a free loopback port that scrapes `targets` (daemon ports)
    every `interval`, keeping its data in a temporary folder, optionally loading rule files."""

    def __init__(self, targets: list[int], name: str, interval: str = "1s", rules: list[pathlib.Path] = ()):
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="rh-prometheus-"))
        config = self.folder / "prometheus.yml"
        rule_lines = "".join(f"  - {json.dumps(str(path))}\n" for path in rules)
        config.write_text(
            "global:\n"
            f"  scrape_interval: {interval}\n"
            f"  scrape_timeout: {interval}\n"
            f"  evaluation_interval: {interval}\n"
            + (f"rule_files:\n{rule_lines}" if rules else "")
            + "scrape_configs:\n"
            "  - job_name: reactorhub\n"
            "    static_configs:\n"
            f"      - targets: [{', '.join(json.dumps(f'127.0.0.1:{port}') for port in targets)}]\n"
        )
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.log_path = OUTPUT / f"prometheus-{name}.log"
        self.log = open(self.log_path, "ab")
        for attempt in range(5):  # the free port may be taken between the probe and the bind
            self.port = free_port()
            self.process = subprocess.Popen(
                [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={self.folder / 'data'}",
                 f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
                stdout=self.log, stderr=self.log, cwd=self.folder,
            )
            if self._wait_ready(60) and self._is_ours():
                return
            self.process.kill()
            self.process.wait()
        raise RuntimeError(f"prometheus did not start; see {self.log_path}")

    def _wait_ready(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=5) as response:
                    if response.status == 200:
                        return True
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.1)
        return False

    def _is_ours(self) -> bool:
        """Whether the Prometheus answering on the port is this one (its storage folder):
        a free port can be handed to another test's Prometheus, which then answers while
        ours fails to bind."""
        flags = self.api("status/flags")
        return flags.get("storage.tsdb.path") == str(self.folder / "data") and self.process.poll() is None

    def api(self, path: str, **params):
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=30) as response:
            reply = json.loads(response.read())
        assert reply["status"] == "success", reply
        return reply["data"]

    def query(self, expression: str) -> list[tuple[dict, float]]:
        """An instant query at the current time: (labels, value) for each series of the vector."""
        data = self.api("query", query=expression)
        assert data["resultType"] == "vector", data
        return [(item["metric"], float(item["value"][1])) for item in data["result"]]

    def value(self, expression: str) -> float:
        """The value of an expression that gives exactly one series."""
        result = self.query(expression)
        assert len(result) == 1, f"{expression}: {result}"
        return result[0][1]

    def last_scrape(self) -> float:
        """When the newest scrape of the daemon started (seconds since 1970) if it
        succeeded, else 0. (`timestamp()` of a plain selector is the sample's own time.)"""
        when = self.query('timestamp(up{job="reactorhub"})')
        up = self.query('up{job="reactorhub"}')
        if len(when) != 1 or len(up) != 1 or up[0][1] != 1:
            return 0.0
        return when[0][1]

    def wait_scrape_after(self, moment: float, timeout: float = 60) -> float:
        """Waits for a successful scrape that started after `moment` (time.time())."""
        return wait_until(lambda: (lambda t: t if t > moment else 0)(self.last_scrape()), timeout,
                          f"a scrape after {moment:.3f} (Prometheus log: {self.log_path})", interval=0.2)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def promtool(*arguments: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([PROMTOOL, *arguments], input=stdin, capture_output=True, text=True, timeout=60)
