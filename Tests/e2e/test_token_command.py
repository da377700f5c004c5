"""`reactorhub token --sub alice --read 'doc/*' --act 'doc/team-*' --ttl 1h [--config F]`: a
token that PyJWT verifies with the secret, with exactly those claims, and that the daemon
accepts with those rights."""
import json
import os
import subprocess
import time

import jwt

from auth_support import SECRET, Client, auth_config
from conftest import BINARY, ROOT


def reactorhub(*args, env=None):
    environment = {key: value for key, value in os.environ.items() if key != "REACTORHUB_AUTH_SECRET"}
    return subprocess.run([str(BINARY), *args], cwd=ROOT, capture_output=True, timeout=30,
                          env={**environment, **(env or {})})


def write_config(tmp_path, config) -> str:
    path = tmp_path / "reactorhub.json"
    path.write_text(json.dumps(config))
    return str(path)


def test_the_token_command_mints_what_pyjwt_verifies_with_those_claims(tmp_path):
    config = write_config(tmp_path, auth_config())
    before = int(time.time())
    result = reactorhub("token", "--sub", "alice", "--read", "doc/*", "--act", "doc/team-*", "--ttl", "1h", "--config", config)
    after = int(time.time())
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1 and result.stderr == b""
    text = lines[0]
    claims = jwt.decode(text, SECRET, algorithms=["HS256"])
    assert jwt.get_unverified_header(text)["alg"] == "HS256"
    assert set(claims) == {"sub", "iat", "exp", "rh"}
    assert claims["sub"] == "alice"
    assert claims["rh"] == {"read": ["doc/*"], "act": ["doc/team-*"]}
    assert before <= claims["iat"] <= after
    assert claims["exp"] - claims["iat"] == 3600
    # Another secret does not verify it.
    try:
        jwt.decode(text, SECRET + "x", algorithms=["HS256"])
        raise AssertionError("verified with the wrong secret")
    except jwt.InvalidSignatureError:
        pass


def test_repeated_patterns_keep_their_order_and_ttl_units_add_up(tmp_path):
    config = write_config(tmp_path, auth_config())
    result = reactorhub("token", "--sub", "bob", "--read", "todo/*", "--read", "doc/notes-{sub}", "--ttl", "1h30m",
                        "--config", config)
    assert result.returncode == 0, result.stderr
    claims = jwt.decode(result.stdout.decode().strip(), SECRET, algorithms=["HS256"])
    assert claims["rh"] == {"read": ["todo/*", "doc/notes-{sub}"], "act": []}
    assert claims["exp"] - claims["iat"] == 5400


def test_the_secret_may_come_from_the_environment(tmp_path):
    config = write_config(tmp_path, auth_config({"hs256Secret": None}))
    result = reactorhub("token", "--sub", "carol", "--read", "counter/*", "--ttl", "90s", "--config", config,
                        env={"REACTORHUB_AUTH_SECRET": "from-the-environment-0123456789abcdef"})
    assert result.returncode == 0, result.stderr
    claims = jwt.decode(result.stdout.decode().strip(), "from-the-environment-0123456789abcdef", algorithms=["HS256"])
    assert claims["sub"] == "carol" and claims["exp"] - claims["iat"] == 90


def test_a_minted_token_opens_a_connection_with_its_rights(daemon_factory, tmp_path):
    hub = daemon_factory(auth_config())
    text = reactorhub("token", "--sub", "alice", "--read", "doc/*", "--act", "doc/team-*", "--ttl", "1h",
                      "--config", str(hub.config_path)).stdout.decode().strip()
    client = Client(hub.url, token=text)
    assert client.hello["user"] == "alice"
    client.join("doc/team-a")
    client.join("doc/private")
    assert client.act("doc/team-a", {"type": "set", "path": "/x", "value": 1})["type"] == "ack"
    assert client.act("doc/private", {"type": "set", "path": "/x", "value": 1})["message"] == (
        "doc/private needs the 'act' right; this token's act patterns: doc/team-*")


def test_the_token_command_refuses_what_it_cannot_mint(tmp_path):
    no_auth = write_config(tmp_path, {})
    result = reactorhub("token", "--sub", "alice", "--read", "doc/*", "--config", no_auth)
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().splitlines() == [
        "reactorhub: token: needs auth.hs256Secret in the configuration (or REACTORHUB_AUTH_SECRET)"]
    config = write_config(tmp_path, auth_config())
    for args, named in ((["--sub", "alice", "--ttl", "soon"], "--ttl"), (["--sub", "a" * 129], "sub"),
                        (["--sub", "alice", "--read", "doc/[x"], "doc/[x")):
        result = reactorhub("token", *args, "--config", config)
        stderr = result.stderr.decode().splitlines()
        assert result.returncode == 2 and result.stdout == b"" and len(stderr) == 1 and named in stderr[0], stderr


def test_token_help_prints_the_token_commands_help():
    result = reactorhub("token", "--help")
    assert result.returncode == 0 and result.stderr == b""
    text = result.stdout.decode()
    assert text.startswith("usage: reactorhub token --sub SUB [--read PATTERN]... [--act PATTERN]...\n")
    assert "--no-rights" in text and "--ttl DURATION" in text
    assert "--port" not in text and "--print-config" not in text


def test_a_token_without_rights_is_refused_unless_no_rights_says_so(tmp_path):
    config = write_config(tmp_path, auth_config())
    refused = reactorhub("token", "--sub", "alice", "--ttl", "1h", "--config", config)
    assert refused.returncode == 2 and refused.stdout == b""
    assert refused.stderr.decode().splitlines() == [
        "reactorhub: token: no --read or --act given, so the token would allow nothing; give --read PATTERN and/or "
        "--act PATTERN (e.g. --read 'doc/*'), or --no-rights for a token that only names the user"]
    minted = reactorhub("token", "--sub", "alice", "--no-rights", "--config", config)
    assert minted.returncode == 0, minted.stderr
    claims = jwt.decode(minted.stdout.decode().strip(), SECRET, algorithms=["HS256"])
    assert claims["sub"] == "alice"
    assert claims.get("rh", {"read": [], "act": []}) == {"read": [], "act": []}
