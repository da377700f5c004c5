"""The doc kind's bounds against a real daemon (issue 30): `reactors.doc.maxDepth` (every
walk over a state is safe at its largest value, 512, in this debug build too, and such a
state comes back after a restart), `maxElements` and `maxOperations`, each refusal naming
its key, and an out-of-range `maxDepth` refused at start."""
import asyncio
import json
import subprocess

import websockets

from auth_support import http
from conftest import BINARY, ROOT, base_config


async def connect(daemon):
    ws = await websockets.connect(daemon.url, subprotocols=["reactorhub.v1"], max_size=None)
    assert json.loads(await ws.recv())["type"] == "hello"
    return ws


async def request(ws, message, want):
    """Sends `message`; returns the first reply whose type is in `want`, skipping the rest."""
    await ws.send(json.dumps(message))
    while True:
        reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if reply["type"] in want and reply.get("ref", message.get("ref")) == message.get("ref"):
            return reply


def nested(depth, leaf=1):
    """`{"k":{"k":…leaf…}}`: `depth` objects."""
    value = leaf
    for _ in range(depth):
        value = {"k": value}
    return value


def path(depth):
    return "/k" * depth


def act(address, ref, action):
    return {"type": "action", "reactor": address, "ref": ref, "action": action}


def test_the_issues_deep_document_attack_is_refused_naming_max_depth_and_the_daemon_lives(daemon):
    async def run():
        ws = await connect(daemon)
        await request(ws, {"type": "join", "reactor": "doc/deep", "ref": "j"}, {"snapshot"})
        # The attack nested 500 levels per set; 36 of them crashed the daemon.
        refused = await request(ws, act("doc/deep", 1, {"type": "set", "path": "/a", "value": nested(500)}), {"ack", "error"})
        assert refused["type"] == "error" and refused["code"] == "invalid_action", refused
        assert refused["message"] == ("set does not apply: the document would be nested 501 levels deep at '/a', "
                                      "more than 64 (reactors.doc.maxDepth)")
        accepted = await request(ws, act("doc/deep", 2, {"type": "set", "path": "/a", "value": nested(63)}), {"ack", "error"})
        assert accepted["type"] == "ack", accepted
        one_more = await request(ws, act("doc/deep", 3, {"type": "set", "path": "/a" + path(63), "value": {}}), {"ack", "error"})
        assert one_more["type"] == "error" and "more than 64 (reactors.doc.maxDepth)" in one_more["message"], one_more
        assert (await request(ws, {"type": "ping", "ref": "p"}, {"pong"}))["type"] == "pong"
        await ws.close()

    asyncio.run(run())
    assert daemon.process.poll() is None


def test_a_doc_at_max_depth_512_goes_through_every_walk_and_comes_back_after_a_restart(daemon_factory, tmp_path):
    """Edit (set, patch with test, a move the publisher diffs), diff, encode (patches,
    snapshots, the admin listing), store and parse back, resume from stored patches, and
    free: all at 512 levels, the deepest `maxDepth` accepts, in a debug build."""
    config = base_config(admin={"token": "admin"})
    config["reactors"]["doc"] = {"maxDepth": 512}
    config["persistence"] = {"kind": "sqlite", "path": str(tmp_path / "deep.sqlite"), "flushMs": 50}
    address = "doc/deepest"
    first = daemon_factory(config, name="doc-deep-first")

    async def build():
        ws = await connect(first)
        watcher = await connect(first)
        await request(watcher, {"type": "join", "reactor": address, "ref": "w"}, {"snapshot"})
        await request(ws, {"type": "join", "reactor": address, "ref": "j"}, {"snapshot"})
        # The root and 299 objects in one set, then 212 more below them: 512.
        for ref, action in enumerate([
            {"type": "set", "path": "/k", "value": nested(299)},
            {"type": "set", "path": path(300), "value": nested(212)},
            {"type": "patch", "ops": [{"op": "test", "path": path(512), "value": 1},
                                      {"op": "replace", "path": path(512), "value": 2}]},
            {"type": "patch", "ops": [{"op": "add", "path": path(511) + "/m", "value": 3},
                                      {"op": "move", "from": path(511) + "/m", "path": path(511) + "/n"}]},
        ]):
            reply = await request(ws, act(address, ref, action), {"ack", "error"})
            assert reply["type"] == "ack", reply
        too_deep = await request(ws, act(address, "deeper", {"type": "set", "path": path(512), "value": {}}), {"ack", "error"})
        assert too_deep["type"] == "error" and "more than 512 (reactors.doc.maxDepth)" in too_deep["message"], too_deep
        # The watcher saw every version.
        versions = []
        while len(versions) < 4:
            frame = json.loads(await asyncio.wait_for(watcher.recv(), 30))
            if frame["type"] == "patch":
                versions.append(frame["version"])
        assert versions == [1, 2, 3, 4]
        snapshot = await request(ws, {"type": "join", "reactor": address, "ref": "again"}, {"snapshot"})
        listing = http("GET", f"{first.http_url}/admin/instances/{address}", bearer="admin")
        await ws.close()
        await watcher.close()
        return snapshot, listing

    snapshot, listing = asyncio.run(build())
    expected = nested(511, {"k": 2, "n": 3})
    assert snapshot["state"] == expected
    assert listing[0] == 200 and json.loads(listing[1])["state"] == expected
    assert first.stop() == 0

    second = daemon_factory(config, name="doc-deep-second")

    async def restored():
        ws = await connect(second)
        fresh = await request(ws, {"type": "join", "reactor": address, "ref": "r"}, {"snapshot"})
        other = await connect(second)
        resumed = await request(other, {"type": "join", "reactor": address, "ref": "s",
                                        "since": {"epoch": fresh["epoch"], "version": 1}}, {"resumed", "snapshot"})
        missed = [json.loads(await asyncio.wait_for(other.recv(), 30)) for _ in range(3)]
        # Freed: the deep document is replaced, and the old one goes.
        emptied = await request(ws, act(address, "empty", {"type": "set", "path": "", "value": {}}), {"ack", "error"})
        await ws.close()
        await other.close()
        return fresh, resumed, missed, emptied

    fresh, resumed, missed, emptied = asyncio.run(restored())
    assert (fresh["epoch"], fresh["version"], fresh["state"]) == (snapshot["epoch"], 4, expected)
    assert resumed["type"] == "resumed" and [frame["version"] for frame in missed] == [2, 3, 4]
    assert emptied["type"] == "ack"
    assert second.process.poll() is None
    assert second.stop() == 0


def test_containers_and_patches_past_their_bounds_are_refused_naming_them(daemon_factory):
    config = base_config(limits={"maxMessageBytes": 1 << 20})
    config["reactors"]["doc"] = {"maxElements": 1000, "maxOperations": 50}
    daemon = daemon_factory(config)

    async def run():
        ws = await connect(daemon)
        await request(ws, {"type": "join", "reactor": "doc/wide", "ref": "j"}, {"snapshot"})
        full = await request(ws, act("doc/wide", 1, {"type": "set", "path": "/a", "value": list(range(1000))}), {"ack", "error"})
        assert full["type"] == "ack", full
        past = await request(ws, act("doc/wide", 2, {"type": "set", "path": "/a/-", "value": 1000}), {"ack", "error"})
        assert past["message"] == ("set does not apply: the array at '/a' would hold 1001 elements, more than 1000 "
                                   "(reactors.doc.maxElements)"), past
        wide = await request(ws, act("doc/wide", 3, {"type": "set", "path": "/b", "value": {f"m{i}": i for i in range(1001)}}),
                             {"ack", "error"})
        assert wide["code"] == "invalid_action" and wide["message"].endswith("more than 1000 (reactors.doc.maxElements)"), wide
        ops = [{"op": "replace", "path": "/a/0", "value": i} for i in range(51)]
        many = await request(ws, act("doc/wide", 4, {"type": "patch", "ops": ops}), {"ack", "error"})
        assert many["message"] == "the patch has 51 operations, more than 50 (reactors.doc.maxOperations)", many
        fifty = await request(ws, act("doc/wide", 5, {"type": "patch", "ops": ops[:50]}), {"ack", "error"})
        assert fifty["type"] == "ack", fifty
        state = await request(ws, {"type": "join", "reactor": "doc/wide", "ref": "again"}, {"snapshot"})
        assert state["state"] == {"a": [49] + list(range(1, 1000))}
        await ws.close()

    asyncio.run(run())


def test_max_depth_outside_1_to_512_is_refused_at_start_naming_the_key(tmp_path):
    for value in (0, 513):
        config_path = tmp_path / f"depth-{value}.json"
        config_path.write_text(json.dumps({"reactors": {"doc": {"maxDepth": value}}}))
        result = subprocess.run([str(BINARY), "--config", str(config_path), "--port", "0"],
                                cwd=ROOT, capture_output=True, timeout=20)
        assert result.returncode == 2
        assert result.stderr.decode() == (f"reactorhub: {config_path}: reactors.doc.maxDepth must be an integer "
                                          f"from 1 to 512, got {value}\n")
