"""The harness's own checks, on synthetic frames from a scripted fake server: a patch
coalesced by the server (`base` spanning several versions) is applied; gaps, a wrong
base, a duplicate reply and a bad resume are reported as failures, never repaired by a
silent re-join. (The daemon sends no coalesced frames today: its diff publishes one patch
per version, so `base` is exercised here; the sync suites count any they see, in
sync-report.json `coalescedPatchFrames`.)"""
import asyncio
import json

from websockets.asyncio.server import serve

from sync_harness import SyncClient, write_report

HELLO = {"type": "hello", "protocol": 1, "server": "fake/0", "session": "f1", "reactors": {}}
EPOCH = "00000000000000e1"


class FakeServer:
    """Answers `hello` and the first join with a snapshot, then plays `script` (a list of
    frames, or callables taking the client message that triggered them)."""

    def __init__(self, on_message):
        self.on_message = on_message
        self.received = []
        self.server = None

    async def handler(self, ws):
        await ws.send(json.dumps(HELLO))
        async for raw in ws:
            message = json.loads(raw)
            self.received.append(message)
            for frame in self.on_message(message, len(self.received)):
                await ws.send(json.dumps(frame))

    async def __aenter__(self):
        self.server = await serve(self.handler, "127.0.0.1", 0, subprotocols=["reactorhub.v1"])
        port = self.server.sockets[0].getsockname()[1]
        self.url = f"ws://127.0.0.1:{port}/ws"
        return self

    async def __aexit__(self, *exc):
        self.server.close()
        await self.server.wait_closed()


def snapshot(message, version, state):
    return {"type": "snapshot", "reactor": message["reactor"], "ref": message["ref"], "epoch": EPOCH,
            "version": version, "state": state}


def patch(version, ops, base=None):
    frame = {"type": "patch", "reactor": "doc/x", "version": version, "patch": ops}
    if base is not None:
        frame["base"] = base
    return frame


def test_coalesced_patch_with_base_is_applied():
    async def run():
        def on_message(message, _):
            if message["type"] == "join":
                return [snapshot(message, 0, {"a": 0}),
                        patch(1, [{"op": "replace", "path": "/a", "value": 1}]),
                        patch(4, [{"op": "replace", "path": "/a", "value": 4}, {"op": "add", "path": "/b", "value": [1]}], base=1),
                        patch(5, [{"op": "add", "path": "/b/-", "value": 2}])]
            return [{"type": "pong", "ref": message["ref"]}]

        async with FakeServer(on_message) as server:
            client = SyncClient(server.url, "harness")
            await client.connect()
            await client.join("doc/x")
            await client.wait_version("doc/x", 5)
            copy = client.copy("doc/x")
            assert client.failures == []
            assert (copy.version, copy.state, copy.coalesced, copy.patches, copy.versions) == (5, {"a": 4, "b": [1, 2]}, 1, 3, 5)
            await client.close()
        return copy.coalesced

    assert asyncio.run(run()) == 1
    write_report("harness_base_logic", {"syntheticCoalescedFramesApplied": 1})


def test_gap_and_wrong_base_are_failures_and_nothing_rejoins_silently():
    async def run():
        def on_message(message, _):
            if message["type"] == "join" and "since" not in message:
                return [snapshot(message, 0, {"a": 0}),
                        patch(1, [{"op": "replace", "path": "/a", "value": 1}]),
                        patch(3, [{"op": "replace", "path": "/a", "value": 3}]),           # gap: 2 missing
                        patch(4, [{"op": "replace", "path": "/a", "value": 4}])]
            if message["type"] == "join":
                assert message["since"] == {"epoch": EPOCH, "version": 1}
                return [{"type": "resumed", "reactor": "doc/x", "ref": message["ref"], "epoch": EPOCH, "version": 1},
                        patch(2, [{"op": "replace", "path": "/a", "value": 2}]),
                        patch(4, [{"op": "replace", "path": "/a", "value": 4}], base=2),
                        patch(6, [{"op": "replace", "path": "/a", "value": 6}], base=4),
                        patch(7, [{"op": "replace", "path": "/a", "value": 7}], base=5)]  # wrong base
            return [{"type": "pong", "ref": message["ref"]}, {"type": "pong", "ref": message["ref"]}]  # twice

        async with FakeServer(on_message) as server:
            client = SyncClient(server.url, "harness")
            await client.connect()
            await client.join("doc/x")
            await client.ping()
            await asyncio.sleep(0.1)
            copy = client.copy("doc/x")
            assert copy.broken and copy.version == 1
            assert any("gap: holding 1, got patch 2->3" in f for f in client.failures)
            assert any("second reply for ref" in f for f in client.failures)
            assert [m["type"] for m in server.received] == ["join", "ping"], "no silent re-join"
            client.failures.clear()
            reply = await client.rejoin("doc/x")
            assert reply["type"] == "resumed"
            await client.wait_until(lambda: copy.broken or copy.version >= 6)
            await asyncio.sleep(0.1)
            assert copy.state == {"a": 6} and copy.resumed == 1 and copy.versions == 6
            assert any("gap: holding 6, got patch 5->7" in f for f in client.failures)
            await client.close()

    asyncio.run(run())


def test_resumed_must_match_since_and_patches_need_a_join():
    async def run():
        def on_message(message, _):
            if message["type"] == "join" and "since" not in message:
                return [snapshot(message, 3, {"a": 3})]
            if message["type"] == "join":
                return [{"type": "resumed", "reactor": "doc/x", "ref": message["ref"], "epoch": "other", "version": 2},
                        patch(4, [{"op": "replace", "path": "/a", "value": 4}]),
                        {"type": "pulse", "reactor": "doc/x", "version": 5, "name": "event", "value": None}]
            if message["type"] == "leave":
                return [{"type": "left", "reactor": "doc/x", "ref": message["ref"]},
                        patch(4, [{"op": "replace", "path": "/a", "value": 4}])]
            return []

        async with FakeServer(on_message) as server:
            client = SyncClient(server.url, "harness")
            await client.connect()
            await client.join("doc/x")
            await client.rejoin("doc/x")
            assert any("resumed with epoch other" in f for f in client.failures)
            assert any("resumed names version 2, since had 3" in f for f in client.failures)
            await client.wait_until(lambda: len(client.failures) >= 3)
            assert any("pulse event of version 5 before its patch (holding 4)" in f for f in client.failures)
            client.failures.clear()
            await client.leave("doc/x")
            await client.wait_until(lambda: client.failures)
            assert "patch for a reactor not joined" in client.failures[0]
            await client.close()

    asyncio.run(run())
