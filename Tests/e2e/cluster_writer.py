"""A writer that retries with action ids, as client libraries do (PROTOCOL.md "Actions that
are safe to resend"): each action appends its own id to the doc's `/log`; after `overloaded`,
a lost connection, a refused upgrade or a silent node it sends the same id again, through the
next node."""
import asyncio
import itertools
import json
import time

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake


class IdWriter:
    def __init__(self, urls: list[str], address: str, name: str, first: int = 0, reply_timeout: float = 15):
        self.urls = urls
        self.address = address
        self.name = name
        self.at = first
        self.reply_timeout = reply_timeout
        self.ws = None
        self.refs = itertools.count(1)
        self.acked: dict[str, dict] = {}      # id -> its (first) ack
        self.acked_at: dict[str, float] = {}  # id -> when its ack arrived
        self.acked_sent_at: dict[str, float] = {}  # id -> when the attempt that got it was sent
        self.sent: list[str] = []             # every id sent at least once
        self.resends = 0
        self.overloaded = 0
        self.duplicates = 0
        self.errors: list[dict] = []

    async def _connect(self) -> None:
        url = self.urls[self.at % len(self.urls)]
        self.ws = await ws_connect(url, subprotocols=["reactorhub.v1"], ping_interval=None, open_timeout=5, proxy=None)
        json.loads(await asyncio.wait_for(self.ws.recv(), 5))
        await self.ws.send(json.dumps({"type": "join", "reactor": self.address, "ref": "join"}))
        while True:
            message = json.loads(await asyncio.wait_for(self.ws.recv(), 10))
            if message.get("ref") == "join":
                if message.get("type") != "snapshot":
                    raise ConnectionError(f"join answered {message}")
                return

    async def _drop(self) -> None:
        if self.ws is not None:
            try:
                self.ws.transport.abort()
            except Exception:
                pass
        self.ws = None
        self.at += 1

    async def write(self, id: str, deadline: float = 60) -> dict:
        """Sends `add /log/- id` with action id `id` until it is acked (or refused otherwise)."""
        self.sent.append(id)
        give_up = time.monotonic() + deadline
        first = True
        while time.monotonic() < give_up:
            try:
                if self.ws is None:
                    await self._connect()
                ref = next(self.refs)
                if not first:
                    self.resends += 1
                first = False
                sent_at = time.monotonic()
                await self.ws.send(json.dumps({
                    "type": "action", "reactor": self.address, "id": id, "ref": ref,
                    "action": {"type": "patch", "ops": [{"op": "add", "path": "/log/-", "value": id}]},
                }))
                end = time.monotonic() + self.reply_timeout
                while True:
                    message = json.loads(await asyncio.wait_for(self.ws.recv(), max(0.01, end - time.monotonic())))
                    if message.get("ref") == ref:
                        break
                if message["type"] == "ack":
                    if message.get("duplicate"):
                        self.duplicates += 1
                    self.acked.setdefault(id, message)
                    self.acked_at.setdefault(id, time.monotonic())
                    self.acked_sent_at.setdefault(id, sent_at)
                    return message
                if message.get("code") == "overloaded":
                    self.overloaded += 1
                    await asyncio.sleep(0.05)
                    continue
                self.errors.append(message)
                return message
            # InvalidHandshake: a node that is stopping answers an upgrade with 503, or
            # closes a connection it accepted before its response when it exits
            except (ConnectionClosed, InvalidHandshake, OSError, asyncio.TimeoutError, ConnectionError):
                await self._drop()
                await asyncio.sleep(0.1)
        raise AssertionError(f"{self.name}: {id} not acked within {deadline} s")

    async def run(self, count: int, stop: asyncio.Event | None = None, pace: float = 0.0) -> None:
        for i in range(count):
            if stop is not None and stop.is_set():
                return
            await self.write(f"{self.name}-{i}")
            if pace:
                await asyncio.sleep(pace)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None


def check_exactly_once(log: list, writers: list[IdWriter]) -> None:
    counts: dict[str, int] = {}
    for entry in log:
        counts[entry] = counts.get(entry, 0) + 1
    for writer in writers:
        for id in writer.acked:
            assert counts.get(id) == 1, f"acked id {id} applied {counts.get(id, 0)} times"
        for id in writer.sent:
            assert counts.get(id, 0) <= 1, f"id {id} applied {counts[id]} times"
