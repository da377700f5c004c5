"""Fixtures for the end-to-end suites: a real `reactorhub` process on an ephemeral port."""
import json
import os
import pathlib
import resource
import signal
import subprocess
import tempfile
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BINARY = pathlib.Path(os.environ.get("REACTORHUB_BINARY", ROOT / ".build" / "debug" / "reactorhub"))
OUTPUT = pathlib.Path(os.environ.get("REACTORHUB_TEST_OUTPUT", ROOT / "test-output"))
# The daemon logs written by this run so far, by name (`Daemon`).
_LOGS_STARTED: set[str] = set()


class Daemon:
    """A running daemon: its port, its process, and its log file. `config` is a dict written
    to a file, or the path of a file to use as it is (a shipped one); `arguments` follow
    `--port 0`; `env` is added to the environment; `binary` runs another build (an
    example's server). With TLS configured the start line reads
    https:// and `url` is wss://."""

    def __init__(self, config: dict | pathlib.Path, workdir: pathlib.Path, name: str, env: dict | None = None,
                 open_files: int | None = None, arguments: tuple[str, ...] = (), binary: pathlib.Path | None = None):
        self.workdir = workdir
        if isinstance(config, pathlib.Path):
            self.config_path = config
        else:
            self.config_path = workdir / "reactorhub.json"
            self.config_path.write_text(json.dumps(config))
        OUTPUT.mkdir(parents=True, exist_ok=True)
        self.log_path = OUTPUT / f"{name}.log"
        # A name's first daemon in this run starts its log afresh (a run before in the same
        # tree left its lines, which tests that read the log would count); a later one with
        # the same name (a restart) appends.
        self.log = open(self.log_path, "ab" if name in _LOGS_STARTED else "wb")
        _LOGS_STARTED.add(name)
        def limit_open_files():  # soft and hard: the daemon raises its soft limit to the hard one
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

        self.process = subprocess.Popen(
            [str(binary or BINARY), "--config", str(self.config_path), "--port", "0", *arguments],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=self.log, env={**os.environ, **(env or {})},
            preexec_fn=limit_open_files if open_files else None,
        )
        line = self.process.stdout.readline().decode()
        if not line.startswith(("listening on http://", "listening on https://")):
            self.process.kill()
            raise RuntimeError(f"daemon did not start: {line!r}; see {self.log_path}")
        self.start_line = line.strip()
        self.secure = line.startswith("listening on https://")
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.url = f"{'wss' if self.secure else 'ws'}://127.0.0.1:{self.port}/ws"
        self.http_url = f"{'https' if self.secure else 'http'}://127.0.0.1:{self.port}"

    def rss_bytes(self) -> int:
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def kill(self) -> None:
        """Ends the process at once (SIGKILL), as a crash would."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self, timeout: float = 10) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not self.log.closed:
            self.log.close()
        return self.process.returncode


def base_config(**overrides) -> dict:
    config = {
        "logLevel": "info",
        "reactors": {"counter": {"delayMs": 500}, "weather": {"latencyMs": 50}},
    }
    for key, value in overrides.items():
        config[key] = value
    return config


def supported(config: dict) -> dict:
    """`config` without the keys the binary under test does not know, so that a suite can
    run against an older build (REACTORHUB_BINARY) and show what it does there."""
    from load_tools import known_configuration, without_unknown_keys
    return without_unknown_keys(config, known_configuration(str(BINARY)))


@pytest.fixture
def daemon_factory(request):
    """Starts daemons with a given configuration and stops them after the test;
    `open_files` starts one under that open-file limit, `binary` another build (an example's
    server)."""
    started = []
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="rh-e2e-"))

    def start(config=None, name=None, env=None, open_files=None, arguments=(), binary=None):
        daemon = Daemon(config or base_config(), workdir, name or request.node.name, env=env, open_files=open_files,
                        arguments=arguments, binary=binary)
        started.append(daemon)
        return daemon

    yield start
    for daemon in started:
        daemon.stop()


@pytest.fixture
def daemon(daemon_factory):
    return daemon_factory()


def wait_for(predicate, timeout=5.0, interval=0.01):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()
