"""reactorhub-cli where a user goes wrong or a session ends, against real daemons: a TLS
failure names --ca-file and --insecure, a server that wants a token names --token, a
revoked user's `watch` stops with the reason instead of retrying forever, and every way
the CLI ends (`state`, `send`, `watch` on SIGINT or SIGTERM) closes its connection with
1000, as the daemon's JSON log says."""
import json
import signal
import urllib.request

import pytest

from auth_support import ADMIN_TOKEN, auth_config, self_signed_certificate, token
from conftest import base_config, wait_for
from test_cli_client import CLI, Lines, cli

pytestmark = pytest.mark.skipif(not CLI.exists(), reason=f"no reactorhub-cli at {CLI} (swift build --product reactorhub-cli)")

TOKEN_ADVICE = ("this server needs a token: pass --token TOKEN or set REACTORHUB_TOKEN "
                "(reactorhub token --sub NAME --read 'KIND/*' mints one)")


class CloseLog:
    """The "connection closed" lines a daemon (logFormat json) logs from now on: its log
    file is named after the test and appended to by every run."""

    def __init__(self, daemon):
        self.path = daemon.log_path
        self.start = self.path.stat().st_size

    def closes(self) -> list[dict]:
        with open(self.path, "rb") as log:
            log.seek(self.start)
            lines = [json.loads(line) for line in log.read().decode().splitlines() if line.startswith("{")]
        return [line["metadata"] for line in lines if line["message"] == "connection closed"]


def test_a_tls_failure_names_ca_file_and_insecure(daemon_factory, tmp_path):
    cert, key = self_signed_certificate(tmp_path)
    hub = daemon_factory(base_config(tls={"certFile": str(cert), "keyFile": str(key)}))
    failed = cli("state", hub.url, "counter/tls", "--json")
    assert failed.returncode == 1
    error = json.loads(failed.stdout)
    assert error["code"] == "cannot_connect"
    assert error["message"].endswith(
        "; the TLS handshake failed: for a self-signed certificate or one of your own CA, pass --ca-file PATH "
        "(that certificate or CA as PEM), or --insecure to accept any certificate (testing only)")
    trusted = cli("state", hub.url, "counter/tls", "--ca-file", str(cert), "--json")
    assert trusted.returncode == 0, trusted.stderr
    assert json.loads(trusted.stdout)["state"] == {"value": 0, "isLoading": False}


def test_a_missing_token_says_to_use_the_token_option(daemon_factory):
    hub = daemon_factory(auth_config({"required": True}))
    result = cli("state", hub.url, "counter/needs-token")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == f"error unauthenticated: {TOKEN_ADVICE}"
    assert '"type":"auth"' not in result.stderr
    as_json = cli("state", hub.url, "counter/needs-token", "--json")
    assert json.loads(as_json.stdout) == {"type": "error", "code": "unauthenticated", "message": TOKEN_ADVICE,
                                          "reactor": "counter/needs-token"}
    given = cli("state", hub.url, "counter/needs-token", "--json", "--token", token("alice", read=["counter/*"]))
    assert given.returncode == 0, given.stderr
    assert json.loads(given.stdout)["state"] == {"value": 0, "isLoading": False}


def test_a_revoked_users_watch_stops_with_the_reason(daemon_factory):
    hub = daemon_factory(auth_config(admin={"token": ADMIN_TOKEN}, logFormat="json"))
    log = CloseLog(hub)
    watch = Lines("watch", hub.url, "counter/revoked", "--json", "--token", token("alice", read=["counter/*"]))
    try:
        assert watch.next_json(timeout=30)["state"] == {"value": 0, "isLoading": False}
        request = urllib.request.Request(f"{hub.http_url}/admin/revoke", data=b'{"sub":"alice"}', method="POST",
                                          headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.read() == b'{"closed":1}'
        error = watch.next_json(timeout=30)
        assert watch.process.wait(timeout=30) == 1
    finally:
        watch.stop()
    assert error["type"] == "error" and error["code"] == "unauthenticated"
    assert "closed with 1008: revoked" in error["message"]
    assert error["message"].endswith("; the token given with --token (or REACTORHUB_TOKEN) is refused or no longer valid: "
                                     "pass a fresh one")
    assert [close["reason"] for close in log.closes()] == ["revoked"]


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_watch_stopped_by_a_signal_closes_with_1000_every_time(daemon_factory, stop_signal):
    hub = daemon_factory(base_config(logFormat="json", persistence={"kind": "memory"}))
    log = CloseLog(hub)
    runs = 4
    for run in range(runs):
        watch = Lines("watch", hub.url, f"counter/signal{run}", "--json")
        assert watch.next_json(timeout=30)["version"] == 0
        watch.process.send_signal(stop_signal)
        assert watch.process.wait(timeout=30) == 0
    assert wait_for(lambda: len(log.closes()) == runs, timeout=30)
    assert [(close["code"], close["reason"]) for close in log.closes()] == [("1000", "client closed")] * runs


def test_state_and_send_close_with_1000_every_time(daemon_factory):
    hub = daemon_factory(base_config(logFormat="json", persistence={"kind": "memory"}))
    log = CloseLog(hub)
    runs = 4
    for run in range(runs):
        assert cli("state", hub.url, "counter/closing").returncode == 0
        assert cli("send", hub.url, "counter/closing", "increase").returncode == 0
    assert wait_for(lambda: len(log.closes()) == 2 * runs, timeout=30)
    assert [(close["code"], close["reason"]) for close in log.closes()] == [("1000", "client closed")] * (2 * runs)
