"""Issue 30, finding 4: two daemons opened the same SQLite file and both ran (the last
writer won), and a start that failed (the port in use) still wrote to the store and marked
the last run unclean, so the next clean restart gave every client a new epoch. Now the file
is locked: a second daemon exits 2 with one line naming the holder's pid; nothing is
written before the daemon listens; a port in use exits 2 with one line too."""
import asyncio
import json
import socket
import subprocess

from conftest import BINARY, ROOT
from test_persistence import connect, request, sqlite_config


def start_expecting_refusal(config, tmp_path, port=0):
    config_path = tmp_path / "refused.json"
    config_path.write_text(json.dumps(config))
    result = subprocess.run([str(BINARY), "--config", str(config_path), "--port", str(port)],
                            cwd=ROOT, capture_output=True, timeout=60)
    return result.returncode, result.stdout.decode(), result.stderr.decode()


def test_a_second_daemon_on_the_same_file_exits_2_naming_the_first(daemon_factory, tmp_path):
    path = tmp_path / "shared.sqlite"
    config = sqlite_config(path)
    first = daemon_factory(config, name="lock-first")
    status, stdout, stderr = start_expecting_refusal(config, tmp_path)
    assert (status, stdout) == (2, "")
    assert stderr == f"reactorhub: persistence.path: {path} is in use by another reactorhub (pid {first.process.pid})\n"

    async def still_serving():
        ws = await connect(first)
        await request(ws, {"type": "join", "reactor": "doc/lock", "ref": 1}, {"snapshot"})
        ack = await request(ws, {"type": "action", "reactor": "doc/lock", "ref": 2,
                                 "action": {"type": "set", "path": "/n", "value": 1}}, {"ack"})
        await ws.close()
        return ack

    assert asyncio.run(still_serving())["type"] == "ack"
    # Once the first has gone, the file is free.
    assert first.stop() == 0
    second = daemon_factory(config, name="lock-second")
    assert second.stop() == 0


def test_a_start_on_a_port_in_use_exits_2_and_leaves_the_store_as_it_was(daemon_factory, tmp_path):
    config = sqlite_config(tmp_path / "clean.sqlite")
    first = daemon_factory(config, name="port-first")

    async def change():
        ws = await connect(first)
        snapshot = await request(ws, {"type": "join", "reactor": "doc/kept", "ref": 1}, {"snapshot"})
        await request(ws, {"type": "action", "reactor": "doc/kept", "ref": 2,
                           "action": {"type": "set", "path": "/n", "value": 1}}, {"ack"})
        await ws.close()
        return snapshot["epoch"]

    epoch = asyncio.run(change())
    assert first.stop() == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status, stdout, stderr = start_expecting_refusal(config, tmp_path, port=port)
    assert (status, stdout) == (2, "")
    # The log says what lws saw; the daemon's own refusal is one line, the last.
    refusals = [line for line in stderr.splitlines() if line.startswith("reactorhub: ")]
    assert refusals == [f"reactorhub: port: cannot listen on 127.0.0.1:{port}: the address is in use "
                        "(another process listens on it) or not available"], stderr
    assert stderr.splitlines()[-1] == refusals[0]
    # The failed start wrote nothing: the clean stop stands, and a client resumes.
    third = daemon_factory(config, name="port-third")

    async def resume():
        ws = await connect(third)
        reply = await request(ws, {"type": "join", "reactor": "doc/kept", "ref": 1,
                                    "since": {"epoch": epoch, "version": 1}}, {"resumed", "snapshot"})
        await ws.close()
        return reply

    reply = asyncio.run(resume())
    assert (reply["type"], reply["epoch"], reply["version"]) == ("resumed", epoch, 1), reply
