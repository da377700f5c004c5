"""The daemon's command line and lifecycle, as CONFIG.md describes them."""
import json
import os
import signal
import subprocess
import urllib.request

from conftest import BINARY, ROOT


def run(*args, env=None, timeout=20):
    # Without REACTORHUB_SERVER_THREADS (the test command sets it for every daemon it starts):
    # what these tests print is what their own arguments and environment make it.
    inherited = {key: value for key, value in os.environ.items() if key != "REACTORHUB_SERVER_THREADS"}
    return subprocess.run([str(BINARY), *args], cwd=ROOT, capture_output=True, timeout=timeout,
                          env={**inherited, **(env or {})})


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
    assert effective["history"] == {"patches": 256, "maxBytes": 1048576}


def test_a_configuration_read_from_a_pipe_is_applied(tmp_path):
    # Read to its end, not by its size (which a pipe does not have): /dev/stdin here.
    result = subprocess.run([str(BINARY), "--config", "/dev/stdin", "--print-config"], cwd=ROOT, capture_output=True,
                            timeout=20, input=json.dumps({"port": 7321, "logLevel": "warning"}).encode())
    assert result.returncode == 0, result.stderr
    effective = json.loads(result.stdout)
    assert (effective["port"], effective["logLevel"]) == (7321, "warning")
    empty = tmp_path / "empty.json"
    empty.write_text("")
    refused = run("--config", str(empty))
    assert refused.returncode == 2
    assert refused.stderr.decode().strip() == f"reactorhub: {empty}: not valid JSON: unexpected end of input, expected a value"
    folder = run("--config", str(tmp_path))
    assert (folder.returncode, folder.stderr.decode().strip()) == (2, f"reactorhub: {tmp_path}: configuration file not found or not readable")


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
    assert process.wait(timeout=60) == 0
    log = process.stderr.read().decode()
    assert "shutting down" in log and "signal=SIGTERM" in log


def test_help_lists_every_environment_variable_and_the_token_command():
    usage = run("--help").stdout.decode()
    for name in ["REACTORHUB_HOST", "REACTORHUB_PORT", "REACTORHUB_LOG_LEVEL", "REACTORHUB_AUTH_SECRET",
                 "REACTORHUB_CLUSTER_REDIS", "REACTORHUB_NODE_ID", "REACTORHUB_PERSISTENCE_PATH",
                 "--cluster-redis HOST:PORT", "--node-id ID", "reactorhub token --sub SUB"]:
        assert name in usage, name


def test_version_prints_the_one_version():
    result = run("--version")
    assert (result.returncode, result.stdout) == (0, b"reactorhub 0.1.0\n")


def test_unknown_key_is_refused_with_a_suggestion(tmp_path):
    config = tmp_path / "c.json"
    config.write_text('{"limits": {"maxConnection": 5}}')
    result = run("--config", str(config))
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [
        f"reactorhub: {config}: unknown key 'limits.maxConnection' (did you mean 'limits.maxConnections'?); "
        "keys accepted in 'limits': maxMessageBytes, maxConnections, maxJoinsPerConnection, actionsPerSecond, "
        "actionBurst, outboundQueueBytes, outboundBudgetBytes, maxInstances, maxPendingActions, maxPendingActionsTotal, "
        "maxConnectionsPerAddress, upgradesPerSecond, maxMemoryBytes, maxInstancesPerUser, joinsPerSecond, joinBurst, "
        "tlsHandshakesPerSecond, tlsHandshakeBurst"]


def test_rules_between_keys_exit_2_naming_the_key(tmp_path):
    cases = {
        '{"auth": {"required": false}}': "auth.hs256Secret",
        '{"tls": {"certFile": "cert.pem"}}': "tls.keyFile",
        '{"cluster": {}, "persistence": {"kind": "sqlite"}}': "persistence.kind",
        '{"persistence": {"kind": "redis"}}': "persistence.kind",
    }
    for text, named in cases.items():
        config = tmp_path / "bad.json"
        config.write_text(text)
        result = run("--config", str(config))
        stderr = result.stderr.decode().strip()
        assert result.returncode == 2, text
        assert len(stderr.splitlines()) == 1 and named in stderr, stderr


def test_print_config_shows_present_optional_sections_and_masks_secrets(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"admin": {"token": "root-token"}, "auth": {"audience": "hub"},
                                  "presence": {"maxListed": 5}}))
    result = run("--config", str(config), "--print-config", env={"REACTORHUB_AUTH_SECRET": "s3cret"})
    assert result.returncode == 0, result.stderr
    assert b"s3cret" not in result.stdout and b"root-token" not in result.stdout
    effective = json.loads(result.stdout)
    assert list(effective) == ["host", "port", "webRoot", "logLevel", "logFormat", "limits", "shutdownGraceMs",
                               "history", "keepalive", "reactors", "persistence", "auth", "admin", "presence",
                               "webhooks", "diagnostics"]
    assert effective["auth"] == {"hs256Secret": "***", "publicKeyFile": None, "audience": "hub", "issuer": None,
                                 "leewaySeconds": 30, "required": True, "timeoutMs": 10000,
                                 "anonymousRights": {"read": [], "act": []}}
    assert effective["admin"] == {"token": "***"}
    assert effective["presence"] == {"maxBytes": 1024, "maxListed": 5}


def test_cluster_flags_bring_in_the_cluster_with_redis_as_the_store(tmp_path):
    config = tmp_path / "c.json"
    config.write_text("{}")
    result = run("--config", str(config), "--cluster-redis", "10.0.0.5:6380", "--print-config",
                 env={"REACTORHUB_NODE_ID": "n1"})
    assert result.returncode == 0, result.stderr
    effective = json.loads(result.stdout)
    assert effective["cluster"] == {"redis": "10.0.0.5:6380", "nodeId": "n1", "leaseMs": 5000, "keyPrefix": "rh",
                                    "sentinels": [], "masterName": None, "minReplicas": 0}
    assert effective["persistence"]["kind"] == "redis"


def test_relative_paths_in_a_file_are_taken_from_its_folder(tmp_path):
    folder = tmp_path / "etc"
    (folder / "site").mkdir(parents=True)
    (folder / "site" / "index.html").write_text("<html>site</html>")
    (folder / "cities.json").write_text((ROOT / "config" / "weather.json").read_text())
    config = folder / "reactorhub.json"
    config.write_text(json.dumps({"webRoot": "site", "reactors": {"weather": {"dataFile": "cities.json"}},
                                  "persistence": {"kind": "sqlite", "path": "state/db.sqlite"}}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run([str(BINARY), "--config", "../etc/reactorhub.json", "--print-config"], cwd=elsewhere,
                            capture_output=True, timeout=20)
    assert result.returncode == 0, result.stderr
    effective = json.loads(result.stdout)
    assert effective["webRoot"] == str(folder / "site")
    assert effective["reactors"]["weather"]["dataFile"] == str(folder / "cities.json")
    assert effective["persistence"]["path"] == str(folder / "state" / "db.sqlite")


def test_a_missing_path_is_refused_naming_the_key_and_the_resolved_path(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"reactors": {"weather": {"dataFile": "nowhere.json"}}}))
    result = run("--config", str(config))
    assert result.returncode == 2
    assert result.stderr.decode().splitlines() == [
        f"reactorhub: reactors.weather.dataFile: file not found: {tmp_path / 'nowhere.json'}"]
    result = run("--web-root", str(tmp_path / "no-site"), "--config", str(config))
    assert result.stderr.decode().splitlines() == [f"reactorhub: webRoot: folder not found: {tmp_path / 'no-site'}"]


def test_the_shipped_config_given_by_absolute_path_starts_from_another_folder(tmp_path):
    """`--config /abs/config/reactorhub.json` from elsewhere once stopped with
    `config/weather.json: weather data file not found`."""
    process = subprocess.Popen([str(BINARY), "--config", str(ROOT / "config" / "reactorhub.json"), "--port", "0"],
                               cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "REACTORHUB_PERSISTENCE_PATH": str(tmp_path / "state.sqlite")})
    try:
        line = process.stdout.readline().decode().strip()
        assert line.startswith("listening on http://127.0.0.1:"), process.stderr.read()
        port = int(line.rsplit(":", 1)[1])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            assert response.read() == (ROOT / "web" / "index.html").read_bytes()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    assert (tmp_path / "state.sqlite").exists()


def test_json_log_format_writes_one_object_per_line(tmp_path):
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"logFormat": "json"}))
    process = subprocess.Popen([str(BINARY), "--config", str(config), "--port", "0"], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout.readline().decode().startswith("listening on http://")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0
    records = [json.loads(line) for line in process.stderr.read().decode().splitlines()]
    started = next(record for record in records if record["message"] == "reactorhub started")
    assert started["level"] == "info" and started["label"] == "reactorhub"
    assert started["metadata"]["config"] == str(config)
    assert int(started["metadata"]["threads"]) >= 1
    assert set(started) == {"time", "level", "label", "message", "metadata"}


def test_a_signal_right_after_listening_stops_the_daemon_every_time(tmp_path):
    """SIGTERM or SIGINT sent as soon as the daemon says it is listening, 20 times: each
    run drains and exits 0. The daemon once watched the signals through Dispatch sources,
    which libdispatch arms later on its own thread; on a loaded machine a signal that came
    first was ignored and the daemon kept running (8 of 11 such runs beside four CPU hogs)."""
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"logFormat": "json"}))
    for round in range(20):
        process = subprocess.Popen([str(BINARY), "--config", str(config), "--port", "0"], cwd=ROOT,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            assert process.stdout.readline().decode().startswith("listening on http://")
            sent = signal.SIGTERM if round % 2 else signal.SIGINT
            process.send_signal(sent)
            assert process.wait(timeout=60) == 0, f"round {round}"
            records = [json.loads(line) for line in process.stderr.read().decode().splitlines()]
            assert [record["message"] for record in records] == ["reactorhub started", "shutting down", "reactorhub stopped"]
            assert records[1]["metadata"] == {"signal": sent.name}
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()

