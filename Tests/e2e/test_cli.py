"""The daemon's command line and lifecycle, as CONFIG.md describes them."""
import json
import os
import signal
import subprocess
import urllib.request

from conftest import BINARY, ROOT


def run(*args, env=None, timeout=20):
    return subprocess.run([str(BINARY), *args], cwd=ROOT, capture_output=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def test_help_lists_every_option():
    result = run("--help")
    assert result.returncode == 0
    for option in ["--config", "--host", "--port", "--web-root", "--log-level", "--print-config", "--help", "--version"]:
        assert option in result.stdout.decode()


def test_print_config_applies_file_then_environment_then_flags(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"port": 7000, "host": "10.1.1.1", "logLevel": "debug"}))
    result = run("--config", str(config), "--log-level", "error", "--print-config",
                 env={"REACTORHUB_PORT": "7100", "REACTORHUB_LOG_LEVEL": "warning"})
    assert result.returncode == 0
    effective = json.loads(result.stdout)
    assert (effective["port"], effective["host"], effective["logLevel"]) == (7100, "10.1.1.1", "error")
    assert effective["limits"]["maxMessageBytes"] == 65536
    assert effective["history"] == {"patches": 256}


def test_bad_configuration_exits_2_with_one_line_naming_the_key(tmp_path):
    cases = {
        '{"limits": {"maxJoinsPerConnection": 0}}': "limits.maxJoinsPerConnection",
        '{"reactors": {"todo": {"maxItem": 5}}}': "reactors.todo.maxItem",
        '{"port": 8080,': "not valid JSON",
        '{"shutdownGraceMs": "soon"}': "shutdownGraceMs",
    }
    for text, named in cases.items():
        config = tmp_path / "bad.json"
        config.write_text(text)
        result = run("--config", str(config))
        stderr = result.stderr.decode().strip()
        assert result.returncode == 2, text
        assert len(stderr.splitlines()) == 1 and named in stderr, stderr


def test_port_zero_prints_the_line_serves_health_and_sigterm_exits_0(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"persistence": {"kind": "memory"}}))
    process = subprocess.Popen([str(BINARY), "--config", str(config), "--port", "0"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = process.stdout.readline().decode().strip()
    assert line.startswith("listening on http://127.0.0.1:")
    port = int(line.rsplit(":", 1)[1])
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as response:
        assert (response.status, response.read()) == (200, b"ok\n")
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
        assert response.status == 200 and b"<html" in response.read().lower()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    log = process.stderr.read().decode()
    assert "shutting down" in log and "signal=SIGTERM" in log
