"""Persistence on SQLite with a real daemon process: restart, crash, durable acks,
schema changes and unusable database files."""
import asyncio
import json
import pathlib
import sqlite3
import subprocess
import time

import websockets

from conftest import BINARY, ROOT, base_config
from ops_support import http, wait_until

ADMIN_TOKEN = "admin-token-for-tests"


def admin_detail(daemon, path):
    response = http(daemon.port, f"/admin/instances/{path}", token=ADMIN_TOKEN)
    assert response.status == 200, (response.status, response.text)
    return response.json()


def sqlite_config(path, **persistence):
    config = base_config()
    config["reactors"]["counter"]["delayMs"] = 0
    config["limits"] = {"actionsPerSecond": 100000, "actionBurst": 100000}
    config["persistence"] = {"kind": "sqlite", "path": str(path), "flushMs": 200, **persistence}
    return config


async def connect(daemon):
    ws = await websockets.connect(daemon.url, subprotocols=["reactorhub.v1"])
    hello = json.loads(await ws.recv())
    assert hello["type"] == "hello"
    return ws


async def request(ws, message, want):
    """Sends `message` and returns the first reply of a type in `want`; an error reply
    to it fails the test."""
    await ws.send(json.dumps(message))
    while True:
        reply = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if reply["type"] in want:
            return reply
        assert not (reply["type"] == "error" and reply.get("ref") == message.get("ref")), reply


async def increase_times(ws, address, count):
    """Sends `count` increases and waits for each one's pulse (the end of its effect)."""
    for _ in range(count):
        await ws.send(json.dumps({"type": "action", "reactor": address, "action": "increase"}))
        while json.loads(await ws.recv())["type"] != "pulse":
            pass


def test_restart_keeps_state_version_and_epoch_and_resumes(daemon_factory, tmp_path):
    config = sqlite_config(tmp_path / "state.sqlite")

    async def before():
        ws = await connect(first)
        snapshot = await request(ws, {"type": "join", "reactor": "counter/keep", "ref": 1}, {"snapshot"})
        await increase_times(ws, "counter/keep", 2)  # versions 1..6
        mid = await request(ws, {"type": "join", "reactor": "counter/keep", "ref": 2}, {"snapshot"})
        await increase_times(ws, "counter/keep", 1)  # versions 7..9
        final = await request(ws, {"type": "join", "reactor": "counter/keep", "ref": 3}, {"snapshot"})
        await ws.close()
        return snapshot["epoch"], mid, final

    first = daemon_factory(config, name="persist-first")
    epoch, mid, final = asyncio.run(before())
    assert (mid["version"], final["version"]) == (6, 9)
    assert first.stop() == 0

    second = daemon_factory(config, name="persist-second")

    async def after():
        ws = await connect(second)
        fresh = await request(ws, {"type": "join", "reactor": "counter/keep", "ref": 1}, {"snapshot"})
        assert (fresh["epoch"], fresh["version"], fresh["state"]) == (epoch, 9, {"value": 3, "isLoading": False})
        other = await connect(second)
        resumed = await request(other, {"type": "join", "reactor": "counter/keep", "ref": 2,
                                        "since": {"epoch": epoch, "version": 6}}, {"resumed", "snapshot"})
        assert resumed["type"] == "resumed" and resumed["version"] == 6
        versions = [json.loads(await other.recv())["version"] for _ in range(3)]
        assert versions == [7, 8, 9]
        await ws.close()
        await other.close()

    asyncio.run(after())


def stream_until_killed(daemon, address, seconds):
    """Sends doc sets n=1,2,… (about one per millisecond) and records each ack
    (n, version, time) for `seconds`, then kills the daemon. Returns the acks and the
    kill time."""
    async def run():
        ws = await connect(daemon)
        await request(ws, {"type": "join", "reactor": address, "ref": "j"}, {"snapshot"})
        acks = []
        n = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            await asyncio.sleep(0.001)
            n += 1
            reply = await request(ws, {"type": "action", "reactor": address, "ref": n,
                                       "action": {"type": "set", "path": "/n", "value": n}}, {"ack"})
            acks.append((n, reply["version"], time.monotonic()))
        killed_at = time.monotonic()
        daemon.kill()
        return acks, killed_at

    return asyncio.run(run())


def restored_doc(daemon, address):
    async def run():
        ws = await connect(daemon)
        snapshot = await request(ws, {"type": "join", "reactor": address, "ref": 1}, {"snapshot"})
        await ws.close()
        return snapshot

    return asyncio.run(run())


def test_crash_loses_at_most_the_flush_window_and_never_half_a_batch(daemon_factory, tmp_path):
    config = sqlite_config(tmp_path / "crash.sqlite")
    first = daemon_factory(config, name="crash-first")
    acks, killed_at = stream_until_killed(first, "doc/crash", 1.5)
    second = daemon_factory(config, name="crash-second")
    snapshot = restored_doc(second, "doc/crash")
    n = snapshot["state"].get("n", 0)
    # A prefix: the state at version v is exactly the effect of the first v sets.
    assert snapshot["version"] == n
    assert n <= acks[-1][0]
    # At most the window is missing: every set acked 200 ms (flushMs) + 300 ms of slack
    # before the kill is there.
    settled = [a for a in acks if a[2] < killed_at - 0.5]
    assert settled, "the stream was too short to have settled changes"
    assert n >= settled[-1][0]
    print(f"crash: {len(acks)} acked, {n} restored, {acks[-1][0] - n} lost in the window")


def test_durable_acks_lose_nothing_acked(daemon_factory, tmp_path):
    config = sqlite_config(tmp_path / "durable.sqlite", durableAcks=True)
    first = daemon_factory(config, name="durable-first")
    acks, _ = stream_until_killed(first, "doc/durable", 1.0)
    second = daemon_factory(config, name="durable-second")
    snapshot = restored_doc(second, "doc/durable")
    last_acked = acks[-1][0]
    assert snapshot["state"]["n"] >= last_acked
    assert snapshot["version"] >= last_acked


def test_a_state_that_no_longer_decodes_is_set_aside(daemon_factory, tmp_path):
    path = tmp_path / "schema.sqlite"
    config = sqlite_config(path)
    first = daemon_factory(config, name="schema-first")

    async def change():
        ws = await connect(first)
        snapshot = await request(ws, {"type": "join", "reactor": "counter/old", "ref": 1}, {"snapshot"})
        await increase_times(ws, "counter/old", 1)
        await ws.close()
        return snapshot["epoch"]

    old_epoch = asyncio.run(change())
    assert first.stop() == 0
    with sqlite3.connect(path) as db:
        db.execute("""UPDATE instances SET state = '{"value":"seven","isLoading":false}'
                      WHERE kind = 'counter' AND id = 'old'""")

    config["admin"] = {"token": ADMIN_TOKEN}
    second = daemon_factory(config, name="schema-second")
    assert "stored states are set aside" not in second.log_path.read_text()
    snapshot = restored_doc(second, "counter/old")
    assert snapshot["version"] == 0
    assert snapshot["epoch"] != old_epoch
    assert snapshot["state"] == {"value": 0, "isLoading": False}
    # The admin API lists what was kept aside, once the store has written it.
    detail = wait_until(lambda: (lambda d: d if d["setAside"] else None)(admin_detail(second, "counter/old")),
                        timeout=30, what="the set-aside row in GET /admin/instances/counter/old")
    assert [list(entry) for entry in detail["setAside"]] == [["epoch", "version", "reason"]]
    entry = detail["setAside"][0]
    assert (entry["epoch"], entry["version"]) == (old_epoch, 3)
    assert "value" in entry["reason"], entry["reason"]
    assert (detail["epoch"], detail["version"]) == (snapshot["epoch"], 0)
    assert second.stop() == 0
    log = second.log_path.read_text()
    assert "stored state no longer decodes" in log and "kind=counter" in log and "id=old" in log
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT kind, id, epoch, version, state FROM set_aside").fetchall()
    assert rows == [("counter", "old", old_epoch, 3, '{"value":"seven","isLoading":false}')]
    # The next start says so, naming the instance; nothing was deleted.
    third = daemon_factory(config, name="schema-third")
    assert third.stop() == 0
    start = [line for line in third.log_path.read_text().splitlines() if "stored states are set aside" in line]
    assert len(start) == 1 and "count=1" in start[0] and "counter/old" in start[0], start


def run_expecting_refusal(config_path):
    result = subprocess.run([str(BINARY), "--config", str(config_path), "--port", "0"],
                            cwd=ROOT, capture_output=True, timeout=20)
    return result.returncode, result.stderr.decode()


def test_a_corrupt_database_is_refused_at_start_and_left_untouched(tmp_path):
    path = tmp_path / "corrupt.sqlite"
    garbage = bytes((i * 37) % 256 for i in range(8192))
    path.write_bytes(garbage)
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps(sqlite_config(path)))
    status, stderr = run_expecting_refusal(config_path)
    assert status == 2
    assert str(path) in stderr and len(stderr.strip().splitlines()) == 1
    assert path.read_bytes() == garbage


def test_an_unwritable_database_location_is_refused_at_start(tmp_path):
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps(sqlite_config("/proc/reactorhub/state.sqlite")))
    status, stderr = run_expecting_refusal(config_path)
    assert status == 2
    assert "/proc/reactorhub/state.sqlite" in stderr
