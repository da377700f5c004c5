"""lws on libuv (issue 38; BENCHMARKS.md, "lws on libuv"; docs/architecture.md, "Threads"):
with REACTORHUB_LWS_EVENT_LOOP=libuv the daemon's libwebsockets contexts wait in libuv
(epoll) through lws' evlib_uv plugin (Debian's libwebsockets-evlib-uv), on a loop of the
daemon's own. Without the plugin it runs on lws' poll(2) loop and says so in a warning.
Without the variable it runs on poll (the default: lws on libuv closes descriptors twice
at shutdown)."""

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


def test_by_default_the_daemon_waits_in_poll(daemon):
    maps = pathlib.Path(f"/proc/{daemon.process.pid}/maps").read_text()
    assert "libwebsockets-evlib_uv.so" not in maps
    assert hello(daemon.url)["type"] == "hello"
    assert daemon.stop() == 0
    assert FALLBACK not in daemon.log_path.read_text()


def test_asked_for_libuv_the_daemon_waits_in_it_and_keeps_its_signals(daemon_factory):
    daemon = daemon_factory(env={"REACTORHUB_LWS_EVENT_LOOP": "libuv"})
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


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None or not PLUGIN.exists(),
                    reason="hides the plugin in a private mount namespace: needs root and unshare")
def test_without_the_plugin_the_daemon_runs_on_poll_and_says_so(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({**base_config(), "persistence": {"kind": "memory"}}))
    # /dev/null over the plugin, in this process's mount namespace only: lws cannot load it.
    script = f'mount --bind /dev/null {PLUGIN} && exec "$0" --config "$1" --port 0'
    process = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c", script, str(BINARY), str(config)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "REACTORHUB_LWS_EVENT_LOOP": "libuv"})
    try:
        line = process.stdout.readline().decode().strip()
        assert line.startswith("listening on http://127.0.0.1:"), line
        port = int(line.rsplit(":", 1)[1])
        assert hello(f"ws://127.0.0.1:{port}/ws")["type"] == "hello"
        maps = pathlib.Path(f"/proc/{process.pid}/maps").read_text()
        assert "libwebsockets-evlib_uv.so" not in maps
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    log = process.stderr.read().decode()
    assert FALLBACK in log and "libwebsockets-evlib-uv" in log, log
