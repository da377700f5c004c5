"""`make install` into a temporary prefix, then the installed daemon run from folders
that hold nothing of the repository (CONFIG.md "Relative paths…")."""
import asyncio
import json
import os
import pathlib
import signal
import subprocess
import urllib.request
import uuid

import pytest
import websockets

from conftest import BINARY, ROOT


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """An installation of the debug binary (BINARY=…: no release build)."""
    prefix = tmp_path_factory.mktemp("prefix")
    subprocess.run(["make", "-s", "install", f"PREFIX={prefix}", f"BINARY={BINARY}"], cwd=ROOT, check=True,
                   capture_output=True, timeout=120)
    return prefix


def test_install_puts_the_binary_the_page_the_configuration_and_the_unit_under_prefix(prefix):
    assert os.access(prefix / "bin" / "reactorhub", os.X_OK)
    share = prefix / "share" / "reactorhub"
    for name in ["index.html", "app.js", "reactorhub.js", "styles.css", "favicon.svg"]:
        assert (share / "web" / name).read_bytes() == (ROOT / "web" / name).read_bytes()
    for name in ["reactorhub.json", "weather.json", "secure.json", "cluster.json", "haproxy.cfg"]:
        assert (share / "config" / name).read_bytes() == (ROOT / "config" / name).read_bytes()
    unit = (prefix / "lib" / "systemd" / "system" / "reactorhub.service").read_text()
    assert f"ExecStart={prefix}/bin/reactorhub --config {share}/config/reactorhub.json\n" in unit
    for option in ["DynamicUser=yes", "StateDirectory=reactorhub", "NoNewPrivileges=yes",
                   "Environment=REACTORHUB_PERSISTENCE_PATH=/var/lib/reactorhub/reactorhub.sqlite"]:
        assert f"\n{option}\n" in unit, option
    assert "/usr/local" not in unit


def test_destdir_stages_the_same_tree(tmp_path):
    subprocess.run(["make", "-s", "install", "PREFIX=/opt/rh", f"DESTDIR={tmp_path}", f"BINARY={BINARY}"],
                   cwd=ROOT, check=True, capture_output=True, timeout=120)
    assert (tmp_path / "opt/rh/bin/reactorhub").exists()
    assert (tmp_path / "opt/rh/share/reactorhub/web/index.html").exists()
    assert (tmp_path / "opt/rh/share/reactorhub/config/weather.json").exists()
    unit = (tmp_path / "opt/rh/lib/systemd/system/reactorhub.service").read_text()
    assert "ExecStart=/opt/rh/bin/reactorhub --config /opt/rh/share/reactorhub/config/reactorhub.json\n" in unit


class Installed:
    """The installed daemon on an ephemeral port, started in `cwd`."""

    def __init__(self, prefix, cwd, *arguments):
        self.process = subprocess.Popen([str(prefix / "bin" / "reactorhub"), "--port", "0", *arguments], cwd=cwd,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.process.stdout.readline().decode().strip()
        if not line.startswith("listening on http://127.0.0.1:"):
            self.process.kill()
            raise AssertionError(f"did not start: {line!r} {self.process.stderr.read().decode()}")
        self.port = int(line.rsplit(":", 1)[1])

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=10) == 0


async def search_weather(port, city):
    """Searches `city` on a reactor of its own (the installed file keeps state in SQLite
    across the runs of this module) and returns the weather it finds."""
    address = f"weather/install-{uuid.uuid4().hex[:8]}"
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws", subprotocols=["reactorhub.v1"]) as ws:
        assert json.loads(await ws.recv())["type"] == "hello"
        await ws.send(json.dumps({"type": "join", "reactor": address, "ref": 1}))
        await ws.send(json.dumps({"type": "action", "reactor": address,
                                  "action": {"type": "searchCityWeather", "city": city}, "ref": 2}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert message["type"] != "error", message
            if message["type"] == "patch":
                for operation in message["patch"]:
                    if operation["path"] == "/weather" and operation.get("value"):
                        return operation["value"]


def check_serves_the_demo_and_the_weather(daemon):
    with urllib.request.urlopen(f"http://127.0.0.1:{daemon.port}/", timeout=5) as response:
        assert response.read() == (ROOT / "web" / "index.html").read_bytes()
    weather = asyncio.run(search_weather(daemon.port, "seoul"))
    assert weather["city"] == "Seoul"


@pytest.mark.parametrize("where", ["root", "fresh"])
def test_installed_daemon_finds_its_page_and_data_from_any_working_directory(prefix, tmp_path, where):
    cwd = pathlib.Path("/") if where == "root" else tmp_path
    daemon = Installed(prefix, cwd)
    try:
        check_serves_the_demo_and_the_weather(daemon)
    finally:
        daemon.stop()


def test_installed_daemon_with_a_config_given_by_absolute_path_from_another_folder(prefix, tmp_path):
    etc = tmp_path / "etc"
    etc.mkdir()
    config = etc / "reactorhub.json"
    config.write_text(json.dumps({"reactors": {"weather": {"latencyMs": 10}}}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    printed = subprocess.run([str(prefix / "bin" / "reactorhub"), "--config", str(config), "--print-config"],
                             cwd=elsewhere, capture_output=True, timeout=20)
    assert printed.returncode == 0, printed.stderr
    effective = json.loads(printed.stdout)
    assert effective["webRoot"] == str(prefix / "share" / "reactorhub" / "web")
    assert effective["reactors"]["weather"]["dataFile"] == str(prefix / "share" / "reactorhub" / "config" / "weather.json")
    daemon = Installed(prefix, elsewhere, "--config", str(config))
    try:
        check_serves_the_demo_and_the_weather(daemon)
    finally:
        daemon.stop()
