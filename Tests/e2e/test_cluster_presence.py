"""Presence across the nodes of a cluster (PROTOCOL.md "Presence", CLUSTER.md): an entry set
through one node is in the snapshots of the others and broadcast to their subscribers;
a node killed with `kill -9` takes its entries with it once its lease lapses."""
import asyncio
import json
import time

from websockets.asyncio.client import connect as ws_connect

from cluster_support import LEASE_MS, cluster_factory, redis_server  # noqa: F401
from sync_harness import SUBPROTOCOL

ADDRESS = "doc/cluster-presence"
# The entries of a dead node leave within leaseMs (its hash expires), noticed at the next
# sweep of each replica (every leaseMs/3); slack for a machine shared with other builds.
LEAVE_SLACK = 5.0


class Member:
    """A raw protocol client that records the presence frames it receives."""

    def __init__(self, url: str):
        self.url = url
        self.frames: list[dict] = []

    async def open(self) -> None:
        self.ws = await ws_connect(self.url, subprotocols=[SUBPROTOCOL], ping_interval=None, proxy=None)
        self.hello = json.loads(await self.ws.recv())
        self.session = self.hello["session"]

    async def next(self, timeout: float = 20) -> dict:
        message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        if message["type"] == "presence":
            self.frames.append(message)
        return message

    async def join(self) -> dict:
        await self.ws.send(json.dumps({"type": "join", "reactor": ADDRESS, "ref": "j"}))
        while (message := await self.next())["type"] != "snapshot":
            pass
        return message

    async def set_presence(self, state, ref) -> None:
        await self.ws.send(json.dumps({"type": "presence", "reactor": ADDRESS, "state": state, "ref": ref}))
        while (message := await self.next())["type"] != "ack":
            assert message["type"] == "presence", message
        assert message["ref"] == ref
        # Our own change comes back as a broadcast too; waited for, so that later changes
        # are not coalesced with it.
        await self.presence_until(lambda f: self.session in f.get("joins", {}) or self.session in f.get("leaves", []))

    async def presence_until(self, predicate, timeout: float = 20) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{self.session}: no such presence frame; got {self.frames}"
            message = await self.next(remaining)
            if message["type"] == "presence" and predicate(message):
                return message


def test_an_entry_set_on_one_node_reaches_the_others_and_leaves_with_its_killed_node(cluster_factory):
    cluster = cluster_factory(3)
    urls = cluster.urls

    async def scenario():
        ann = Member(urls[0])
        await ann.open()
        assert ann.session.startswith("n0:"), ann.hello
        await ann.join()
        await ann.set_presence({"cursor": 3}, "a1")
        ann_entry = {"user": None, "state": {"cursor": 3}}

        # A node that joins afterwards reads the entry (once the owner's node wrote it).
        hash_key = f"{cluster.prefix}:{{{ADDRESS}}}:presence:n0"
        deadline = time.monotonic() + 20
        while cluster.redis.command("HLEN", hash_key) != b":1\r\n":
            assert time.monotonic() < deadline, "the entry never reached Redis"
            await asyncio.sleep(0.02)
        bob = Member(urls[1])
        await bob.open()
        assert bob.session.startswith("n1:")
        assert (await bob.join())["presence"] == {ann.session: ann_entry}

        carl = Member(urls[2])
        await carl.open()
        assert carl.session.startswith("n2:")
        assert (await carl.join())["presence"] == {ann.session: ann_entry}

        # Set through node 1: broadcast on nodes 0 and 2, exactly this join.
        await bob.set_presence({"typing": True}, "b1")
        bob_entry = {"user": None, "state": {"typing": True}}
        for member in (ann, carl):
            frame = await member.presence_until(lambda f: bob.session in f.get("joins", {}))
            assert frame["joins"] == {bob.session: bob_entry} and frame["leaves"] == [], frame

        # Node 0 dies with ann's entry: the others broadcast its leave once its lease lapses.
        killed_at = time.monotonic()
        cluster.nodes[0].kill()
        for member in (bob, carl):
            frame = await member.presence_until(lambda f: ann.session in f.get("leaves", []), timeout=LEASE_MS / 1000 + 20)
            assert frame["leaves"] == [ann.session] and frame["joins"] == {}, frame
        gone_after = time.monotonic() - killed_at
        print(f"presence of a killed node gone after {gone_after:.2f} s (lease {LEASE_MS} ms)")
        assert gone_after < LEASE_MS / 1000 + LEAVE_SLACK
        fresh = Member(urls[2])
        await fresh.open()
        assert (await fresh.join())["presence"] == {bob.session: bob_entry}
        for member in (bob, carl, fresh):
            await member.ws.close()

    asyncio.run(scenario())
