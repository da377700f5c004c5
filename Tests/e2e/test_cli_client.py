"""reactorhub-cli, the terminal client on the Swift client library, driven as a person
would: against a real daemon (`REACTORHUB_BINARY`), and against small Python servers for
what the daemon cannot show (the Authorization header, wss://).

The CLI is `REACTORHUB_CLI`, by default `.build/debug/reactorhub-cli`.
"""
import asyncio
import json
import os
import pathlib
import queue
import shutil
import signal
import ssl
import subprocess
import tempfile
import threading
import time

import pytest
from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

from conftest import BINARY, OUTPUT, ROOT, base_config

CLI = pathlib.Path(os.environ.get("REACTORHUB_CLI", ROOT / ".build" / "debug" / "reactorhub-cli"))

pytestmark = pytest.mark.skipif(not CLI.exists(), reason=f"no reactorhub-cli at {CLI} (swift build --product reactorhub-cli)")


def cli(*args, env=None, timeout=30):
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


class Lines:
    """A running CLI whose standard output is read line by line."""

    def __init__(self, *args):
        self.process = subprocess.Popen([str(CLI), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def next(self, timeout=10):
        return self.lines.get(timeout=timeout)

    def next_json(self, timeout=10):
        return json.loads(self.next(timeout))

    def until(self, predicate, timeout=10):
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            item = self.next_json(max(0.1, deadline - time.monotonic()))
            seen.append(item)
            if predicate(item):
                return seen

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@pytest.fixture
def hub(daemon_factory):
    return daemon_factory(base_config(reactors={"counter": {"delayMs": 50}}, persistence={"kind": "memory"}))


def test_help_names_every_command_and_option():
    result = cli("--help")
    assert result.returncode == 0
    for word in ["watch", "send", "state", "--json", "--token", "--ca-file", "--insecure", "--timeout", "--help", "exit status"]:
        assert word in result.stdout, word


def test_bad_usage_exits_2_with_one_line():
    for args, named in [((), "missing command"), (("jump", "ws://x/ws", "counter/a"), "unknown command 'jump'"),
                        (("send", "ws://x/ws", "counter/a"), "send takes 3 operands"),
                        (("state", "ws://x/ws", "counter/a", "--timeout", "soon"), "--timeout"),
                        (("state", "ws://x/ws", "counter/a", "--frobnicate"), "unknown option")]:
        result = cli(*args)
        assert result.returncode == 2, args
        assert len(result.stderr.strip().splitlines()) == 1 and named in result.stderr, result.stderr


def test_state_prints_one_snapshot_and_exits(hub):
    result = cli("state", hub.url, "counter/cli-state", "--json")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == {"reactor": "counter/cli-state", "version": 0, "state": {"value": 0, "isLoading": False}}

    pretty = cli("state", f"127.0.0.1:{hub.port}", "counter/cli-state")
    assert pretty.returncode == 0
    head, _, body = pretty.stdout.partition("\n")
    assert head == "counter/cli-state v0"
    assert json.loads(body) == {"value": 0, "isLoading": False}
    assert '\n  "value": 0,\n' in pretty.stdout


def test_send_prints_the_ack_and_the_state_moves(hub):
    result = cli("send", hub.url, "counter/cli-send", "increase")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ack: counter/cli-send accepted the action at version 0, applied at 1"
    # The counter's increase ends after its delay (50 ms): read until it has (isLoading
    # true, value 1, isLoading false are versions 1 to 3), however loaded the machine is.
    deadline = time.monotonic() + 30
    while True:
        after = json.loads(cli("state", hub.url, "counter/cli-send", "--json").stdout)
        if after["version"] >= 3 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert after["state"] == {"value": 1, "isLoading": False}
    assert after["version"] == 3

    added = cli("send", hub.url, "todo/cli-send", '{"type":"add","title":"Buy milk"}', "--json")
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout) == {"type": "ack", "reactor": "todo/cli-send", "version": 0, "applied": 1}
    items = json.loads(cli("state", hub.url, "todo/cli-send", "--json").stdout)["state"]["items"]
    assert [item["title"] for item in items] == ["Buy milk"]


def test_a_refusal_prints_the_error_and_exits_1(hub):
    result = cli("send", hub.url, "counter/cli-refused", "jump")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.strip() == "error unknown_action: counter has no action 'jump'; actions: increase, decrease"

    as_json = cli("send", hub.url, "todo/cli-refused", '{"type":"toggle","id":"nope"}', "--json")
    assert as_json.returncode == 1
    error = json.loads(as_json.stdout)
    assert error["type"] == "error" and error["code"] == "invalid_action" and "no item with id 'nope'" in error["message"]

    unknown = cli("state", hub.url, "nosuchkind/x", "--json")
    assert unknown.returncode == 1
    assert json.loads(unknown.stdout)["code"] == "unknown_reactor"


def test_watch_prints_every_state_and_pulse_as_json_lines(hub):
    watch = Lines("watch", hub.url, "counter/cli-watch", "--json")
    try:
        assert watch.next_json() == {"reactor": "counter/cli-watch", "version": 0, "state": {"value": 0, "isLoading": False}}
        assert cli("send", hub.url, "counter/cli-watch", "increase").returncode == 0
        seen = watch.until(lambda item: "pulse" in item)
        assert [(item["version"], item.get("state")) for item in seen[:-1]] == [
            (1, {"value": 0, "isLoading": True}), (2, {"value": 1, "isLoading": True}), (3, {"value": 1, "isLoading": False})]
        assert seen[-1] == {"reactor": "counter/cli-watch", "version": 3, "pulse": "alertMessage", "value": "increased!"}
    finally:
        status = watch.stop()
    assert status == 0


def test_watch_pretty_prints_a_header_and_the_indented_state(hub):
    watch = Lines("watch", hub.url, "counter/cli-pretty")
    try:
        assert watch.next() == "counter/cli-pretty v0"
        assert [watch.next() for _ in range(4)] == ["{", '  "value": 0,', '  "isLoading": false', "}"]
        assert cli("send", hub.url, "counter/cli-pretty", "decrease").returncode == 0
        while (line := watch.next()) != "counter/cli-pretty v3 pulse alertMessage \"decreased!\"":
            pass
    finally:
        assert watch.stop() == 0


def test_watch_reconnects_when_the_daemon_restarts_on_the_same_port(tmp_path):
    config = tmp_path / "reactorhub.json"
    config.write_text(json.dumps({"persistence": {"kind": "memory"}, "reactors": {"counter": {"delayMs": 20}}}))
    OUTPUT.mkdir(parents=True, exist_ok=True)

    def start(port):
        process = subprocess.Popen([str(BINARY), "--config", str(config), "--port", str(port)], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=open(OUTPUT / "cli-restart.log", "ab"))
        line = process.stdout.readline().decode()
        assert line.startswith("listening on http://"), line
        return process, int(line.strip().rsplit(":", 1)[1])

    first, port = start(0)
    url = f"ws://127.0.0.1:{port}/ws"
    watch = Lines("watch", url, "counter/cli-restart", "--json")
    second = None
    try:
        assert watch.next_json()["version"] == 0
        assert cli("send", url, "counter/cli-restart", "increase").returncode == 0
        watch.until(lambda item: item.get("state") == {"value": 1, "isLoading": False})
        first.kill()
        first.wait()
        for _ in range(50):
            try:
                second, _ = start(port)
                break
            except AssertionError:
                time.sleep(0.1)
        assert second is not None
        # The restarted daemon has a fresh instance: the watcher gets its snapshot and goes on.
        seen = watch.until(lambda item: item.get("version") == 0, timeout=15)
        assert seen[-1] == {"reactor": "counter/cli-restart", "version": 0, "state": {"value": 0, "isLoading": False}}
        assert [item.get("pulse") for item in seen[:-1]] == ["alertMessage"]  # the first run's last pulse
        assert cli("send", url, "counter/cli-restart", "increase").returncode == 0
        watch.until(lambda item: item.get("state") == {"value": 1, "isLoading": False})
        assert watch.process.poll() is None
    finally:
        assert watch.stop() == 0
        for process in (first, second):
            if process and process.poll() is None:
                process.kill()
                process.wait()
    assert "reconnecting" in watch.process.stderr.read()


def test_an_unreachable_server_exits_1():
    result = cli("state", "ws://127.0.0.1:1/ws", "counter/x", "--timeout", "5")
    assert result.returncode == 1
    assert result.stderr.startswith("error cannot_connect:")


class FakeServer:
    """A server that says hello, answers joins with an empty doc, and records the headers
    of each upgrade; optionally over TLS with a self-signed certificate."""

    def __init__(self, tls=False):
        self.headers = []
        self.certificate = None
        context = None
        if tls:
            folder = tempfile.mkdtemp(prefix="cli-tls-")
            self.certificate = os.path.join(folder, "cert.pem")
            key = os.path.join(folder, "key.pem")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                            "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                            "-keyout", key, "-out", self.certificate], check=True, capture_output=True)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(self.certificate, key)
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self._run, args=(context,), daemon=True).start()
        assert self.ready.wait(10)

    async def _handler(self, websocket):
        try:
            await self._serve(websocket)
        except ConnectionClosed:
            pass

    async def _serve(self, websocket):
        self.headers.append(dict(websocket.request.headers.raw_items()))
        await websocket.send(json.dumps({"type": "hello", "protocol": 1, "server": "fake/1", "session": "c1", "reactors": {}}))
        async for text in websocket:
            message = json.loads(text)
            if message["type"] == "join":
                await websocket.send(json.dumps({"type": "snapshot", "reactor": message["reactor"], "ref": message["ref"],
                                                 "epoch": "e", "version": 7, "state": {"hello": "tls" if self.certificate else "plain"}}))
            elif message["type"] == "leave":
                await websocket.send(json.dumps({"type": "left", "reactor": message["reactor"], "ref": message["ref"]}))

    def _run(self, context):
        asyncio.set_event_loop(self.loop)

        async def main():
            async with serve(self._handler, "127.0.0.1", 0, ssl=context) as server:
                self.port = server.sockets[0].getsockname()[1]
                self.ready.set()
                await asyncio.Future()

        self.loop.run_until_complete(main())


@pytest.fixture(scope="module")
def late_context_destroy(tmp_path_factory):
    """A preload that makes every lws context's destruction 200 ms late and fails the
    process (exit 70) when one is still alive at exit."""
    source = pathlib.Path(__file__).parent / "preload" / "late_context_destroy.c"
    library = tmp_path_factory.mktemp("preload") / "late_context_destroy.so"
    compiler = shutil.which("clang") or shutil.which("cc")
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-o", str(library), str(source), "-ldl"], check=True)
    return {"LD_PRELOAD": str(library)}


def test_the_cli_exits_only_after_its_socket_has_stopped(late_context_destroy):
    # A regression: the CLI heard of a failed connection and exited while the socket's
    # service thread was still destroying its lws context; OpenSSL's exit handler had
    # freed what SSL_CTX_free used, and the CLI crashed (SIGSEGV) now and then.
    server = FakeServer(tls=True)
    url = f"wss://localhost:{server.port}/ws"
    untrusted = cli("state", url, "doc/x", env=late_context_destroy)
    assert untrusted.returncode == 1, untrusted.stderr
    assert untrusted.stderr.strip().splitlines()[-1].startswith("error cannot_connect:")
    refused = cli("state", "ws://127.0.0.1:1/ws", "doc/x", env=late_context_destroy)
    assert refused.returncode == 1, refused.stderr
    trusted = cli("state", url, "doc/x", "--ca-file", server.certificate, "--json", env=late_context_destroy)
    assert trusted.returncode == 0, trusted.stderr
    assert json.loads(trusted.stdout)["state"] == {"hello": "tls"}
    assert "still alive at exit" not in untrusted.stderr + refused.stderr + trusted.stderr


def test_the_token_goes_in_the_authorization_header():
    server = FakeServer()
    result = cli("state", f"ws://127.0.0.1:{server.port}/ws", "doc/x", "--token", "abc.def.ghi", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["state"] == {"hello": "plain"}
    from_environment = cli("state", f"127.0.0.1:{server.port}", "doc/x", env={"REACTORHUB_TOKEN": "from.the.env"})
    assert from_environment.returncode == 0
    assert [headers.get("Authorization") for headers in server.headers] == ["Bearer abc.def.ghi", "Bearer from.the.env"]


def test_wss_trusts_a_given_certificate_authority():
    server = FakeServer(tls=True)
    url = f"wss://localhost:{server.port}/ws"
    trusted = cli("state", url, "doc/x", "--ca-file", server.certificate, "--json")
    assert trusted.returncode == 0, trusted.stderr
    assert json.loads(trusted.stdout) == {"reactor": "doc/x", "version": 7, "state": {"hello": "tls"}}
    untrusted = cli("state", url, "doc/x")
    assert untrusted.returncode == 1
    # libwebsockets' own warning says why ("self-signed certificate"), then the error.
    assert "self-signed certificate" in untrusted.stderr
    assert untrusted.stderr.strip().splitlines()[-1].startswith("error cannot_connect:")
    insecure = cli("state", f"wss://127.0.0.1:{server.port}/ws", "doc/x", "--insecure", "--json")
    assert insecure.returncode == 0, insecure.stderr
