"""The echo path of `diagnostics.echoPath`, served by a real daemon: off by default, and
when configured, text and binary come back as sent while the protocol path is unchanged."""
import json

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from conftest import base_config


def test_no_echo_path_by_default(daemon):
    with pytest.raises(InvalidStatus) as refused:
        connect(f"ws://127.0.0.1:{daemon.port}/echo", open_timeout=5)
    assert refused.value.response.status_code == 404


def test_configured_echo_path_echoes_text_and_binary(daemon_factory):
    daemon = daemon_factory(base_config(diagnostics={"echoPath": "/echo"}))
    with connect(f"ws://127.0.0.1:{daemon.port}/echo", open_timeout=5, max_size=None) as echo:
        echo.send("héllo")
        assert echo.recv(timeout=5) == "héllo"
        payload = bytes(range(256)) * 4096
        echo.send(payload)
        assert echo.recv(timeout=10) == payload
    with connect(daemon.url, open_timeout=5) as client:
        hello = json.loads(client.recv(timeout=5))
        assert hello["type"] == "hello"
        client.send('{"type":"ping","ref":1E2}')
        assert client.recv(timeout=5) == '{"type":"pong","ref":1E2}'


def test_echo_path_on_the_protocol_path_is_refused(daemon_factory, tmp_path):
    import subprocess

    from conftest import BINARY

    config = tmp_path / "bad.json"
    config.write_text(json.dumps({"diagnostics": {"echoPath": "/ws"}}))
    result = subprocess.run([str(BINARY), "--config", str(config), "--port", "0"], capture_output=True, text=True, timeout=10)
    assert result.returncode == 2
    assert "diagnostics.echoPath must differ from /ws" in result.stderr
