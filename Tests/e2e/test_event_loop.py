"""lws on libuv (issue 38; BENCHMARKS.md, "lws on libuv"; docs/architecture.md, "Threads"):
the daemon's libwebsockets contexts wait in libuv (epoll) through lws' evlib_uv plugin
(Debian's libwebsockets-evlib-uv), on a loop of the daemon's own. Without the plugin it
runs on lws' poll(2) loop and says so in a warning; REACTORHUB_LWS_EVENT_LOOP=poll asks for
poll, and any other value is refused. lws 4.1.6 on libuv closes each service thread's event
pipe twice when its context is destroyed; the daemon's close guard keeps the second close
from happening (traced here with strace)."""

import contextlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import urllib.request

import pytest
from websockets.sync.client import connect

from conftest import BINARY, ROOT, base_config

PLUGIN = pathlib.Path("/usr/lib/x86_64-linux-gnu/libwebsockets-evlib_uv.so")
FALLBACK = "libwebsockets runs on its poll(2) loop instead of libuv"


def hello(url: str) -> dict:
    with connect(url, open_timeout=10) as websocket:
        return json.loads(websocket.recv(timeout=10))


def test_by_default_the_daemon_waits_in_libuv_and_keeps_its_signals(daemon):
    maps = pathlib.Path(f"/proc/{daemon.process.pid}/maps").read_text()
    assert "libwebsockets-evlib_uv.so" in maps and "libuv.so" in maps
    assert hello(daemon.url)["type"] == "hello"
    with urllib.request.urlopen(f"{daemon.http_url}/healthz", timeout=5) as response:
        assert response.status == 200
    # A loop of lws' own would have taken SIGTERM with a libuv signal watcher: the daemon's
    # handler still gets it, and the stop is clean.
    assert daemon.stop() == 0
    log = daemon.log_path.read_text()
    assert FALLBACK not in log
    assert "signal=SIGTERM" in log


def test_asked_for_poll_the_daemon_waits_in_it(daemon_factory):
    daemon = daemon_factory(env={"REACTORHUB_LWS_EVENT_LOOP": "poll"})
    maps = pathlib.Path(f"/proc/{daemon.process.pid}/maps").read_text()
    assert "libwebsockets-evlib_uv.so" not in maps
    assert hello(daemon.url)["type"] == "hello"
    assert daemon.stop() == 0
    assert FALLBACK not in daemon.log_path.read_text()


def test_an_unknown_event_loop_is_refused_by_name(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({**base_config(), "persistence": {"kind": "memory"}}))
    result = subprocess.run([str(BINARY), "--config", str(config), "--port", "0"], cwd=ROOT, capture_output=True,
                            timeout=60, env={**os.environ, "REACTORHUB_LWS_EVENT_LOOP": "epoll"})
    assert result.returncode != 0
    assert b'REACTORHUB_LWS_EVENT_LOOP must be libuv or poll, not "epoll"' in result.stderr, result.stderr


@contextlib.contextmanager
def wrapped_daemon(command: list[str], env: dict):
    """A daemon started under another program (`command` ends with the daemon and its
    arguments): yields the process and the port it listens on; kills it if still running."""
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, **env})
    try:
        line = process.stdout.readline().decode().strip()
        assert line.startswith("listening on http://127.0.0.1:"), line
        yield process, int(line.rsplit(":", 1)[1])
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def strace_works() -> bool:
    if shutil.which("strace") is None:
        return False
    return subprocess.run(["strace", "-qq", "-o", "/dev/null", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not strace_works(), reason="needs strace, allowed to trace its child")
def test_the_stop_closes_no_descriptor_twice(tmp_path):
    """Before the guard, each service thread's event pipe was closed once by
    lws_context_destroy and again from libuv's close callback: `close(N) = -1 EBADF` in the
    trace, one per thread (and, had another thread been given N in between, its descriptor
    closed under it)."""
    config = tmp_path / "c.json"
    config.write_text(json.dumps({**base_config(), "persistence": {"kind": "memory"}}))
    trace = tmp_path / "close.trace"
    command = ["strace", "-f", "-qq", "-e", "trace=close", "-o", str(trace), str(BINARY), "--config", str(config), "--port", "0"]
    with wrapped_daemon(command, {"REACTORHUB_SERVER_THREADS": "3", "REACTORHUB_LWS_EVENT_LOOP": "libuv"}) as (process, port):
        for _ in range(3):  # one connection on each thread, closed by the client
            assert hello(f"ws://127.0.0.1:{port}/ws")["type"] == "hello"
        children = pathlib.Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        assert len(children) == 1, children
        os.kill(int(children[0]), signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    log = process.stderr.read().decode()
    assert "threads=3" in log and FALLBACK not in log, log
    closes = [entry for entry in trace.read_text().splitlines() if " close(" in entry or entry.startswith("close(")]
    assert len(closes) > 10, closes
    twice = [entry for entry in closes if "EBADF" in entry]
    assert twice == [], twice


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None or not PLUGIN.exists(),
                    reason="hides the plugin in a private mount namespace: needs root and unshare")
def test_without_the_plugin_the_daemon_runs_on_poll_and_says_so(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({**base_config(), "persistence": {"kind": "memory"}}))
    # /dev/null over the plugin, in this process's mount namespace only: lws cannot load it.
    script = f'mount --bind /dev/null {PLUGIN} && exec "$0" --config "$1" --port 0'
    command = ["unshare", "-m", "--propagation", "private", "sh", "-c", script, str(BINARY), str(config)]
    with wrapped_daemon(command, {"REACTORHUB_LWS_EVENT_LOOP": "libuv"}) as (process, port):
        assert hello(f"ws://127.0.0.1:{port}/ws")["type"] == "hello"
        maps = pathlib.Path(f"/proc/{process.pid}/maps").read_text()
        assert "libwebsockets-evlib_uv.so" not in maps
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    log = process.stderr.read().decode()
    assert FALLBACK in log and "libwebsockets-evlib-uv" in log, log
