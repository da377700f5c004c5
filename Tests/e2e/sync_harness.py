"""A reusable multi-client sync harness for ReactorHub (protocol v1, PROTOCOL.md).

Every `SyncClient` is one WebSocket connection (subprotocol `reactorhub.v1`) that keeps,
for each reactor it joined, its own copy of the state, maintained by applying every
received patch with `jsonpatch` (an RFC 6902 implementation independent of the
server's). While it reads it checks the delivery contract and records every breach in
`client.failures` (a test asserts that list is empty); it never repairs anything on
its own (no silent re-join): a test that wants to re-join calls `rejoin()`.

Checks made on every frame:
- a patch's base (`base` when present, else `version - 1`) equals the version held, and
  `version > base`; a patch that does not fit is a *gap* (the copy is then marked broken
  and further patches for it are ignored until a snapshot or `resumed` resets it);
- snapshots replace the copy; an unsolicited snapshot (no ref) is counted as a resync;
- `resumed` has the epoch and the version of `since` (docs/protocol.md: it names the
  version the client held); the patches that follow must continue from it with no gap
  and no repeat (so exactly the missed ones, then the live ones);
- each `ref` gets exactly one reply (`ack`/`error`/`left`/`snapshot`/`resumed`/`pong`);
  a reply for an unknown ref, a second reply, or an error without ref is a failure;
- an `ack` arrives before any patch its action causes: the copy never holds a version
  beyond the ack's `version` (the version at acceptance) when the ack arrives;
- a pulse is recorded with its version, the version the copy held on arrival, the
  arrival index (a per-client counter over all frames) and whether the patch frame
  before it was coalesced, so ordering can be asserted: a pulse never arrives before the
  patch of its step (`version <= held`), and right after a per-version frame it carries
  exactly the version held (after a coalesced frame it may be older: the server sends a
  burst's pulses after the burst's single frame);
- a patch or pulse for a reactor that is not joined (and not being left) is a failure.

Typical use (inside `asyncio.run`):

    client = SyncClient(daemon.url, "c0")
    await client.connect()
    await client.join("doc/x")                       # -> the snapshot message
    reply = await client.act("doc/x", {"type": "set", "path": "/a", "value": 1})
    assert reply["type"] == "ack"                    # act() returns a future of the reply
    await client.wait_version("doc/x", reply["version"] + 1)
    epoch, version, state = await fresh_snapshot(daemon.url, "doc/x")
    assert client.copy("doc/x").state == state
    await client.close(); assert client.failures == []

`act()` is synchronous and returns an `asyncio.Future` (messages leave through one writer
task, in call order, so `act(a); act(b)` reach the server in that order). Other helpers:
`leave`, `ping`, `wait_until(predicate)`, `wait_version`, `disconnect(abort=...)` then
`connect()` and `rejoin(address)` (join with `since` = the held epoch and version),
`pause()`/`resume()` (stop/restart consuming frames; with `rcvbuf` and a small
`max_queue` the kernel buffers fill so the server sees a slow reader), `report()`.

Also here: `fresh_snapshot`, `barrier`/`settle` (wait until everything accepted is
published: acks leave before the patches they cause, so "all acked" is not "all
published"), `RssSampler` (peak VmRSS of the daemon), `canonical`
(strict JSON equality: `true != 1`), `write_report` (merges figures into
`$REACTORHUB_TEST_OUTPUT/sync-report.json`), and the random doc/todo workloads used by
the convergence and reconnect suites: `DocWorkload`/`TodoWorkload` generate actions whose
validity does not depend on the interleaving (each tagged with an `Expect`),
`WorkloadDriver` runs them on a client with a window of actions in flight (with a hook
for disconnects), `check_replies` and `check_version_accounting` check the replies and
that every version is owned by exactly one accepted action.
"""
from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import os
import pathlib
import random
import socket
import time
from typing import Any, Callable
from urllib.parse import urlparse

import jsonpatch
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

SUBPROTOCOL = "reactorhub.v1"
ROOT = pathlib.Path(__file__).resolve().parents[2]
OUTPUT = pathlib.Path(os.environ.get("REACTORHUB_TEST_OUTPUT", ROOT / "test-output"))
REPLY_TYPES = {"ack", "error", "left", "snapshot", "resumed", "pong"}
LOST = {"type": "_lost"}  # the result of a reply future whose connection went away


def canonical(value: Any) -> str:
    """A strict, order-insensitive (for objects) text form: `true`, `1` and `1.0` differ."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class HarnessTimeout(AssertionError):
    pass


# ---------------------------------------------------------------------------------------
# The per-reactor copy
# ---------------------------------------------------------------------------------------

@dataclasses.dataclass
class Pulse:
    reactor: str
    version: int
    name: str
    value: Any
    held: int          # the version the copy held when the pulse arrived
    index: int         # arrival index among all frames of this client
    after_base: int | None = None  # base of the coalesced frame before it, if it was one


@dataclasses.dataclass
class Copy:
    """One client's copy of one reactor instance."""
    address: str
    epoch: str | None = None
    version: int = -1
    state: Any = None
    joined: bool = False
    leaving: bool = False
    broken: bool = False
    last_base: int | None = None     # `base` of the last applied frame, when it carried one
    patches: int = 0                 # patch frames applied
    versions: int = 0                # versions advanced through patches
    coalesced: int = 0               # patch frames that carried `base` (several versions)
    snapshots: int = 0               # snapshots received (solicited or not)
    resyncs: int = 0                 # unsolicited snapshots (after the server dropped patches)
    resumed: int = 0
    first_patch_at: float | None = None
    last_patch_at: float | None = None
    log: list = dataclasses.field(default_factory=list)  # (index, kind, version, detail) if logging


# ---------------------------------------------------------------------------------------
# The client
# ---------------------------------------------------------------------------------------

class SyncClient:
    """One connection holding verified copies of the reactors it joined."""

    def __init__(self, url: str, name: str = "client", *, rcvbuf: int | None = None,
                 max_queue: int | None = 64, log_events: bool = False):
        self.url = url
        self.name = name
        self.rcvbuf = rcvbuf
        self.max_queue = max_queue
        self.log_events = log_events
        self.copies: dict[str, Copy] = {}
        self.pulses: list[Pulse] = []
        self.failures: list[str] = []
        self.session: str | None = None
        self.hello: dict | None = None
        self.replies: dict[Any, dict] = {}        # ref -> reply, for every ref answered
        self.reply_index: dict[Any, int] = {}     # ref -> arrival index of its reply
        self.last_ref: Any = None                 # the ref of the last message sent
        self.sent = 0                             # client messages sent (all connections)
        self.actions_sent = 0
        self.connections = 0
        self.close_codes: list[Any] = []
        # (reactor, epoch, base, version) -> the patch received, as canonical text: two
        # clients (or nodes) that ever disagree on one of these saw a fork.
        self.patch_texts: dict[tuple, str] = {}
        self._refs = itertools.count(1)
        self._pending: dict[Any, asyncio.Future] = {}
        self._pending_kind: dict[Any, tuple[str, str | None, dict | None]] = {}
        self._index = 0
        self._ws = None
        self._reader: asyncio.Task | None = None
        self._writer: asyncio.Task | None = None
        self._outbox: asyncio.Queue | None = None
        self._reading = asyncio.Event()
        self._reading.set()
        self._changed = asyncio.Event()
        self._closing = False
        self._hello_future: asyncio.Future | None = None

    # -- connection ------------------------------------------------------------------

    async def connect(self) -> dict:
        """Opens a connection and returns `hello`. Copies survive reconnects (for `rejoin`)."""
        assert self._ws is None, f"{self.name}: already connected"
        sock = None
        if self.rcvbuf is not None:
            parsed = urlparse(self.url)
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.rcvbuf)
            sock.connect((parsed.hostname, parsed.port))
            sock.setblocking(False)
        self._ws = await ws_connect(
            self.url, subprotocols=[SUBPROTOCOL], ping_interval=None, max_size=None,
            max_queue=self.max_queue, compression=None, proxy=None, sock=sock,
        )
        if self._ws.subprotocol != SUBPROTOCOL:
            self._fail(f"subprotocol {self._ws.subprotocol!r} selected, expected {SUBPROTOCOL}")
        self._closing = False
        self.connections += 1
        for copy in self.copies.values():
            copy.joined = False
            copy.leaving = False
        self._hello_future = asyncio.get_running_loop().create_future()
        self._outbox = asyncio.Queue()
        ws = self._ws
        self._reader = asyncio.create_task(self._read_loop(ws))
        self._writer = asyncio.create_task(self._write_loop(ws, self._outbox))
        self.hello = await asyncio.wait_for(self._hello_future, 10)
        self.session = self.hello.get("session")
        return self.hello

    async def close(self) -> None:
        """Closes the connection normally (1000), after the queued messages are sent."""
        await self.disconnect(abort=False)

    async def disconnect(self, abort: bool = False) -> None:
        """Closes (handshake) or aborts (TCP reset without a close frame) the connection;
        replies still pending resolve to `LOST`. The copies keep their epoch and version."""
        if self._ws is None:
            return
        self._closing = True
        ws, self._ws = self._ws, None
        self._reading.set()
        if abort:
            self._writer.cancel()
            ws.transport.abort()
        else:
            await self._outbox.join()
            self._writer.cancel()
            await ws.close()
        for task in (self._reader, self._writer):
            try:
                await asyncio.wait_for(task, 10)
            except (asyncio.CancelledError, Exception):
                pass
        self._lose_pending()
        for copy in self.copies.values():
            copy.joined = False
        self._poke()

    @property
    def connected(self) -> bool:
        return self._ws is not None

    # -- requests --------------------------------------------------------------------

    def send(self, message: dict, kind: str = "other", reactor: str | None = None) -> asyncio.Future:
        """Sends any client message with a fresh `ref`; returns the future of its reply."""
        assert self._ws is not None, f"{self.name}: not connected"
        ref = next(self._refs)
        message = dict(message, ref=ref)
        self.last_ref = ref
        future = asyncio.get_running_loop().create_future()
        self._pending[ref] = future
        self._pending_kind[ref] = (kind, reactor, message)
        self._outbox.put_nowait(message)
        self.sent += 1
        return future

    async def join(self, address: str, since: dict | None = None, timeout: float = 10) -> dict:
        """Joins (a fresh `snapshot`, or `resumed` with `since`); returns the reply."""
        copy = self.copies.setdefault(address, Copy(address, log=[]))
        copy.joined = True
        copy.leaving = False
        message = {"type": "join", "reactor": address}
        if since is not None:
            message["since"] = since
        reply = await asyncio.wait_for(self.send(message, "join", address), timeout)
        if reply.get("type") not in ("snapshot", "resumed"):
            copy.joined = False
        return reply

    async def rejoin(self, address: str, since: dict | bool = True, timeout: float = 10) -> dict:
        """Joins again on purpose; `since=True` resumes from the held epoch and version."""
        if since is True:
            copy = self.copies[address]
            since = {"epoch": copy.epoch, "version": copy.version}
        return await self.join(address, since=since or None, timeout=timeout)

    async def leave(self, address: str, timeout: float = 10) -> dict:
        copy = self.copies[address]
        copy.leaving = True
        reply = await asyncio.wait_for(self.send({"type": "leave", "reactor": address}, "leave", address), timeout)
        if reply.get("type") == "left":
            copy.joined = False
            copy.leaving = False
        return reply

    def act(self, address: str, action: Any, id: str | None = None) -> asyncio.Future:
        """Dispatches an action (with an idempotent `id` when given); the future resolves to
        its `ack` or `error` (or `LOST`)."""
        self.actions_sent += 1
        message = {"type": "action", "reactor": address, "action": action}
        if id is not None:
            message["id"] = id
        return self.send(message, "action", address)

    async def ping(self, timeout: float = 10) -> dict:
        return await asyncio.wait_for(self.send({"type": "ping"}, "ping"), timeout)

    # -- waiting ---------------------------------------------------------------------

    async def wait_until(self, predicate: Callable[[], bool], timeout: float = 20, what: str = "") -> None:
        """Waits until `predicate()` holds, re-evaluated after every frame this client reads."""
        deadline = time.monotonic() + timeout
        while not predicate():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise HarnessTimeout(f"{self.name}: timed out waiting for {what or predicate}; {self.report()}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(remaining, 0.5))
            except asyncio.TimeoutError:
                pass

    async def wait_version(self, address: str, version: int, timeout: float = 20) -> None:
        copy = self.copies[address]
        await self.wait_until(lambda: copy.version >= version or copy.broken, timeout,
                              f"{address} version {version} (holding {copy.version})")

    # -- slow reading ----------------------------------------------------------------

    def pause(self) -> None:
        """Stops consuming frames (the kernel buffers then fill up)."""
        self._reading.clear()

    def resume(self) -> None:
        self._reading.set()

    # -- inspection ------------------------------------------------------------------

    def copy(self, address: str) -> Copy:
        return self.copies[address]

    def pulses_of(self, address: str) -> list[Pulse]:
        return [p for p in self.pulses if p.reactor == address]

    def report(self) -> dict:
        return {
            "name": self.name, "session": self.session, "connections": self.connections,
            "sent": self.sent, "actions": self.actions_sent, "pending": len(self._pending),
            "pulses": len(self.pulses), "failures": self.failures[:5], "failureCount": len(self.failures),
            "reactors": {
                a: {"version": c.version, "patches": c.patches, "versions": c.versions,
                    "coalesced": c.coalesced, "snapshots": c.snapshots, "resyncs": c.resyncs,
                    "resumed": c.resumed, "broken": c.broken}
                for a, c in self.copies.items()
            },
        }

    # -- internals -------------------------------------------------------------------

    def _fail(self, text: str) -> None:
        self.failures.append(f"{self.name}: {text}")

    def _poke(self) -> None:
        self._changed.set()

    def _lose_pending(self) -> None:
        for ref, future in list(self._pending.items()):
            if not future.done():
                future.set_result(LOST)
        self._pending.clear()
        self._pending_kind.clear()

    async def _write_loop(self, ws, outbox: asyncio.Queue) -> None:
        while True:
            message = await outbox.get()
            try:
                await ws.send(json.dumps(message))
            except ConnectionClosed:
                outbox.task_done()
                return
            outbox.task_done()

    async def _read_loop(self, ws) -> None:
        try:
            while True:
                if not self._reading.is_set():
                    await self._reading.wait()
                raw = await ws.recv()
                if ws is not self._ws and self._closing:
                    continue
                try:
                    message = json.loads(raw)
                except ValueError as error:
                    self._fail(f"unparsable frame {raw[:120]!r}: {error}")
                    continue
                self._index += 1
                try:
                    self._handle(message)
                except Exception as error:  # a harness bug or a malformed frame: report it
                    self._fail(f"could not handle {str(message)[:160]}: {error!r}")
                self._poke()
        except ConnectionClosed as closed:
            self.close_codes.append(closed.rcvd.code if closed.rcvd else None)
            if not self._closing:
                self._fail(f"connection closed by the server: {closed}")
                self._ws = None
                self._lose_pending()
            self._poke()

    def _resolve(self, message: dict) -> None:
        ref = message.get("ref")
        if ref is None:
            self._fail(f"{message.get('type')} without ref: {message}")
            return
        if ref in self.replies:
            self._fail(f"second reply for ref {ref}: {message} (first {self.replies[ref]})")
            return
        future = self._pending.pop(ref, None)
        self._pending_kind.pop(ref, None)
        if future is None:
            self._fail(f"reply for unknown ref {ref}: {message}")
            return
        self.replies[ref] = message
        self.reply_index[ref] = self._index
        if not future.done():
            future.set_result(message)

    def _copy_for(self, message: dict) -> Copy | None:
        address = message.get("reactor")
        copy = self.copies.get(address)
        if copy is None or not (copy.joined or copy.leaving):
            self._fail(f"{message.get('type')} for a reactor not joined: {str(message)[:160]}")
            return None
        return copy

    def _handle(self, message: dict) -> None:
        kind = message.get("type")
        if kind == "hello":
            if self._hello_future is not None and not self._hello_future.done():
                self._hello_future.set_result(message)
            else:
                self._fail("second hello")
            return
        if kind == "patch":
            copy = self._copy_for(message)
            if copy is not None:
                self._apply_patch(copy, message)
            return
        if kind == "pulse":
            copy = self._copy_for(message)
            if copy is not None:
                pulse = Pulse(copy.address, message["version"], message["name"], message.get("value"),
                              copy.version, self._index, copy.last_base)
                self.pulses.append(pulse)
                if not copy.broken:
                    if pulse.version > pulse.held:
                        self._fail(f"{copy.address}: pulse {pulse.name} of version {pulse.version} before its patch (holding {pulse.held})")
                    elif pulse.after_base is None and pulse.version != pulse.held:
                        self._fail(f"{copy.address}: pulse {pulse.name} of version {pulse.version} after the patch of {pulse.held}")
                if self.log_events:
                    copy.log.append((self._index, "pulse", pulse.version, pulse.value))
            return
        if kind == "snapshot":
            copy = self.copies.get(message.get("reactor"))
            if copy is None:
                self._fail(f"snapshot for a reactor never joined: {message.get('reactor')}")
                return
            if message.get("ref") is None:
                if not copy.joined:
                    self._fail(f"unsolicited snapshot for {copy.address}, which is not joined")
                copy.resyncs += 1
            copy.epoch = message["epoch"]
            copy.version = message["version"]
            copy.state = message["state"]
            copy.broken = False
            copy.last_base = None
            copy.snapshots += 1
            if self.log_events:
                copy.log.append((self._index, "snapshot", copy.version, message.get("ref")))
            if message.get("ref") is not None:
                self._resolve(message)
            return
        if kind == "resumed":
            copy = self.copies.get(message.get("reactor"))
            pending = self._pending_kind.get(message.get("ref"))
            since = (pending[2] or {}).get("since") if pending else None
            if copy is None or since is None:
                self._fail(f"resumed without a join with since: {message}")
            else:
                if message["epoch"] != since["epoch"] or copy.epoch != since["epoch"]:
                    self._fail(f"resumed with epoch {message['epoch']}, since had {since['epoch']}")
                if message["version"] != since["version"]:
                    self._fail(f"resumed names version {message['version']}, since had {since['version']}")
                if copy.version != since["version"]:
                    self._fail(f"copy moved from {since['version']} to {copy.version} before resumed")
                copy.broken = False
                copy.last_base = None
                copy.resumed += 1
                if self.log_events:
                    copy.log.append((self._index, "resumed", message["version"], since["version"]))
            self._resolve(message)
            return
        if kind in REPLY_TYPES:
            if kind == "ack":
                copy = self.copies.get(message.get("reactor"))
                if copy is not None and copy.joined and not copy.broken and copy.version > message.get("version", 0):
                    self._fail(f"ack {message} arrived after patch {copy.version}, beyond the version it was accepted at")
            if kind == "left":
                copy = self.copies.get(message.get("reactor"))
                if copy is not None:
                    copy.joined = copy.leaving = False
            self._resolve(message)
            return
        self._fail(f"unknown message type: {str(message)[:160]}")

    def _apply_patch(self, copy: Copy, message: dict) -> None:
        version = message["version"]
        base = message.get("base", version - 1)
        key = (copy.address, copy.epoch, base, version)
        text = canonical(message["patch"])
        if self.patch_texts.setdefault(key, text) != text:
            self._fail(f"{copy.address}: two different patches for {base}->{version} in epoch {copy.epoch}")
        if "base" in message:
            copy.coalesced += 1
        if copy.broken:
            return
        if version <= base:
            self._fail(f"{copy.address}: patch version {version} not after its base {base}")
            copy.broken = True
            return
        if base != copy.version:
            self._fail(f"{copy.address}: gap: holding {copy.version}, got patch {base}->{version}")
            copy.broken = True
            return
        try:
            copy.state = jsonpatch.apply_patch(copy.state, message["patch"], in_place=True)
        except Exception as error:  # jsonpatch / jsonpointer conflicts
            self._fail(f"{copy.address}: patch {version} does not apply to the held state: {error!r}: {message['patch']}")
            copy.broken = True
            return
        if not isinstance(copy.state, dict):
            self._fail(f"{copy.address}: state is no longer an object after patch {version}")
        copy.versions += version - copy.version
        copy.version = version
        copy.patches += 1
        copy.last_base = message.get("base")
        now = time.monotonic()
        copy.first_patch_at = copy.first_patch_at or now
        copy.last_patch_at = now
        if self.log_events:
            copy.log.append((self._index, "patch", version, message["patch"]))


async def fresh_snapshot(url: str, address: str) -> tuple[str, int, Any]:
    """(epoch, version, state) of `address`, from a new connection."""
    client = SyncClient(url, "fresh")
    await client.connect()
    try:
        reply = await client.join(address)
        assert reply["type"] == "snapshot", reply
        return reply["epoch"], reply["version"], reply["state"]
    finally:
        await client.close()


_settle_counter = itertools.count(1)


def settle_action(address: str) -> dict:
    """An action that always changes the state of `address` (a marker for `barrier`)."""
    n = next(_settle_counter)
    kind = address.split("/", 1)[0]
    if kind == "todo":
        return {"type": "add", "title": f"_settled-{n}"}
    if kind == "doc":
        return {"type": "set", "path": "/_settled", "value": n}
    raise ValueError(f"no settle action for {kind}; pass a future of your own")


async def barrier(client: SyncClient, address: str, future: asyncio.Future | None = None, timeout: float = 30) -> int:
    """Waits until everything accepted so far on `address` is published to `client`.

    An `ack` leaves when the action is accepted, but its patch may leave later (the server
    publishes a drain's changes as one burst), so "every action acked" does not mean "every
    change published", and a snapshot taken then may be older. So: send a marker action
    that always changes the state (or pass the future of one), and wait until `client`
    holds the version it made (ack version + 1); the server runs actions one at a time and
    publishes in version order. Returns that version."""
    if future is None:
        future = client.act(address, settle_action(address))
    reply = await asyncio.wait_for(future, timeout)
    assert reply.get("type") == "ack", f"the barrier action was refused: {reply}"
    await client.wait_version(address, reply["version"] + 1, timeout)
    return reply["version"] + 1


async def settle(clients: list[SyncClient], addresses: list[str], url: str, via: SyncClient,
                 futures: dict[str, asyncio.Future] | None = None, timeout: float = 30) -> dict:
    """`barrier` on each address through `via` (with the given marker futures, if any), then
    a fresh snapshot of each, then waits until every connected client that joined it holds
    that version; returns {address: (epoch, version, state)}."""
    fresh = {}
    for address in addresses:
        marked = await barrier(via, address, (futures or {}).get(address), timeout)
        fresh[address] = await fresh_snapshot(url, address)
        assert fresh[address][1] == marked, f"{address}: a fresh snapshot at {fresh[address][1]} after the barrier at {marked}"
    for client in clients:
        for address in addresses:
            if address in client.copies and client.copies[address].joined:
                await client.wait_version(address, fresh[address][1], timeout)
    return fresh


# ---------------------------------------------------------------------------------------
# Daemon memory and the report file
# ---------------------------------------------------------------------------------------

class RssSampler:
    """Samples the daemon's VmRSS every `interval` seconds while running."""

    def __init__(self, daemon, interval: float = 0.02):
        self.daemon = daemon
        self.interval = interval
        self.samples: list[tuple[float, int]] = []
        self._task: asyncio.Task | None = None

    def sample(self) -> int:
        value = self.daemon.rss_bytes()
        self.samples.append((time.monotonic(), value))
        return value

    async def _run(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(self.interval)

    def start(self) -> "RssSampler":
        self._task = asyncio.create_task(self._run())
        return self

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        self.sample()

    def peak(self, since: float | None = None) -> int:
        values = [v for t, v in self.samples if since is None or t >= since]
        return max(values) if values else 0


def write_report(test: str, figures: dict) -> pathlib.Path:
    """Merges `figures` under `tests[test]` in sync-report.json."""
    OUTPUT.mkdir(parents=True, exist_ok=True)
    path = OUTPUT / "sync-report.json"
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError):
        report = {}
    report.setdefault("tests", {})[test] = dict(figures, recordedAt=time.strftime("%Y-%m-%dT%H:%M:%S"))
    report["binary"] = os.environ.get("REACTORHUB_BINARY", str(ROOT / ".build" / "debug" / "reactorhub"))
    path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    return path


def mib(value: int) -> float:
    return round(value / 1048576, 1)


# ---------------------------------------------------------------------------------------
# Random workloads for the `doc` and `todo` kinds
# ---------------------------------------------------------------------------------------

@dataclasses.dataclass
class Expect:
    """What the reply to an action must be.

    outcome: "ack" (valid whatever the interleaving), "error" (invalid whatever the
    interleaving; `code` is the error code required) or "either" (racy: ack or
    invalid_action). changes: "always" (an ack implies exactly one new version), "never"
    (an ack implies none) or "maybe"."""
    outcome: str
    changes: str = "never"
    code: str = "invalid_action"
    label: str = ""
    emit: str | None = None   # the emit's name, for matching its pulse


UNIQUE_KEYS = ["k", "a/b", "t~x", "ünï", "sp ace", "", "0", "quote\"", "back\\slash", "日本"]


def pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


class DocWorkload:
    """Random `doc` actions for client `index`. The client owns `/c{index}` (only it
    writes there), so its model of that subtree is exact and validity is deterministic;
    `/shared` is contended (compare-and-swap patches, appends, removes: racy)."""

    def __init__(self, index: int, rng: random.Random):
        self.index = index
        self.rng = rng
        self.seq = 0
        self.root = f"/c{index}"
        self.own: dict = {"arr": [], "n": 0}

    def setup(self) -> tuple[dict, Expect]:
        return {"type": "set", "path": self.root, "value": {"arr": [], "n": 0}}, Expect("ack", "always", label="setup")

    def reset_from(self, state: dict) -> None:
        """Re-derives the model from a copy (after a reconnect)."""
        self.own = json.loads(json.dumps(state.get(f"c{self.index}", {"arr": [], "n": 0})))
        self.own.setdefault("arr", [])
        self.own.setdefault("n", 0)

    def _value(self) -> Any:
        self.seq += 1
        tag = f"{self.index}.{self.seq}"
        return self.rng.choice([
            lambda: tag,
            lambda: {"by": self.index, "seq": self.seq, "f": self.rng.random()},
            lambda: [self.seq, True, None, "x\u0001\"\\/é😀"],
            lambda: {"nested": {"deep": [tag, {"k": self.seq}]}, "b": False},
            lambda: self.seq + 0.5,
            lambda: f"{tag} \t\n unicode ✓ 日本",
        ])()

    def next(self, state: dict | None) -> tuple[Any, Expect]:
        r = self.rng.random()
        own, root = self.own, self.root
        keys = [k for k in own if k not in ("arr", "n")]
        if r < 0.16:
            key = self.rng.choice(UNIQUE_KEYS)
            value = self._value()
            own[key] = value
            return {"type": "set", "path": f"{root}/{pointer_token(key)}", "value": value}, Expect("ack", "always", label="set")
        if r < 0.24:
            value = self._value()
            if len(own["arr"]) > 12 or (own["arr"] and self.rng.random() < 0.3):
                index = self.rng.randrange(len(own["arr"]))
                own["arr"][index] = value
                return {"type": "set", "path": f"{root}/arr/{index}", "value": value}, Expect("ack", "always", label="set-index")
            tail = self.rng.choice(["-", str(len(own["arr"]))])
            own["arr"].append(value)
            return {"type": "set", "path": f"{root}/arr/{tail}", "value": value}, Expect("ack", "always", label="append")
        if r < 0.32:
            if keys and self.rng.random() < 0.6:
                key = self.rng.choice(keys)
                del own[key]
                return {"type": "remove", "path": f"{root}/{pointer_token(key)}"}, Expect("ack", "always", label="remove")
            if own["arr"]:
                index = self.rng.randrange(len(own["arr"]))
                del own["arr"][index]
                return {"type": "remove", "path": f"{root}/arr/{index}"}, Expect("ack", "always", label="remove-index")
        if r < 0.40:
            n = own["n"]
            own["n"] = n + 1
            ops = [{"op": "test", "path": f"{root}/n", "value": n}, {"op": "replace", "path": f"{root}/n", "value": n + 1}]
            if len(own["arr"]) >= 2 and self.rng.random() < 0.5:
                a, b = self.rng.sample(range(len(own["arr"])), 2)
                ops.append({"op": "move", "from": f"{root}/arr/{a}", "path": f"{root}/arr/{b}"})
                own["arr"].insert(b, own["arr"].pop(a))
            if self.rng.random() < 0.3:
                self.seq += 1
                ops.append({"op": "copy", "from": f"{root}/n", "path": f"{root}/copy"})
                own["copy"] = n + 1
            return {"type": "patch", "ops": ops}, Expect("ack", "always", label="patch-own")
        if r < 0.48:
            n = (state or {}).get("shared", {}).get("n", 0)
            ops = [{"op": "test", "path": "/shared/n", "value": n}, {"op": "replace", "path": "/shared/n", "value": n + 1}]
            return {"type": "patch", "ops": ops}, Expect("either", "always", label="cas-shared")
        if r < 0.54:
            if self.rng.random() < 0.6:
                return ({"type": "set", "path": "/shared/log/-", "value": {"by": self.index, "seq": self._bump()}},
                        Expect("ack", "always", label="log-append"))
            return {"type": "remove", "path": "/shared/log/0"}, Expect("either", "always", label="log-remove")
        if r < 0.58:
            return ({"type": "set", "path": "/shared/last", "value": {"by": self.index, "seq": self._bump()}},
                    Expect("ack", "always", label="set-shared"))
        if r < 0.70:
            name = f"e{self.index}-{self._bump()}"
            action = {"type": "emit", "name": name, "value": self._value()}
            if self.rng.random() < 0.3:
                del action["value"]
            return action, Expect("ack", "never", label="emit", emit=name)
        return self._invalid()

    def _bump(self) -> int:
        self.seq += 1
        return self.seq

    def _invalid(self) -> tuple[Any, Expect]:
        root, s = self.root, self._bump()
        own = self.own
        choices = [
            ({"type": "set", "path": f"{root}/missing-{s}/x", "value": 1}, "set-missing-parent"),
            ({"type": "set", "path": f"/nowhere-{self.index}-{s}/x", "value": 1}, "set-missing-top"),
            ({"type": "remove", "path": f"{root}/never-{s}"}, "remove-missing"),
            ({"type": "remove", "path": ""}, "remove-root"),
            ({"type": "set", "path": "", "value": s}, "set-root-number"),
            ({"type": "set", "path": "no-slash", "value": 1}, "bad-pointer"),
            ({"type": "set", "path": f"{root}/arr/{len(own['arr']) + 5}", "value": 1}, "index-out-of-range"),
            ({"type": "set", "path": f"{root}/n/x", "value": 1}, "set-into-number"),
            ({"type": "patch", "ops": [{"op": "test", "path": f"{root}/n", "value": -1 - s},
                                       {"op": "replace", "path": f"{root}/n", "value": 0}]}, "failing-test"),
            ({"type": "patch", "ops": [{"op": "replace", "path": f"{root}/n", "value": s},
                                       {"op": "remove", "path": f"{root}/never-{s}"}]}, "all-or-nothing"),
            ({"type": "patch", "ops": [{"op": "frobnicate", "path": f"{root}/n"}]}, "unknown-op"),
            ({"type": "patch", "ops": [{"op": "move", "from": f"{root}/never-{s}", "path": f"{root}/y"}]}, "move-missing"),
            ({"type": "set", "path": f"{root}/x"}, "missing-member"),
            ({"type": "set", "path": 5, "value": 1}, "mistyped-member"),
            ({"type": "remove", "path": f"{root}/n", "pth": 1}, "extra-member"),
            ({"type": "patch", "ops": "nope"}, "mistyped-ops"),
            ({"type": "emit"}, "emit-without-name"),
        ]
        action, label = self.rng.choice(choices)
        if self.rng.random() < 0.05:
            return {"type": "frobnicate", "path": "/x"}, Expect("error", code="unknown_action", label="unknown-action")
        return action, Expect("error", label=label)


class TodoWorkload:
    """Random `todo` actions for client `index`. Its *live* items (added by it and never
    toggled) are touched by nobody else, and `clearCompleted` cannot remove them (they are
    not done), so toggling, renaming and removing them, and moving within the first
    len(live) indexes, are valid whatever the interleaving. A toggled item is *retired*:
    anyone's `clearCompleted` may remove it, so later actions on it are racy."""

    def __init__(self, index: int, rng: random.Random):
        self.index = index
        self.rng = rng
        self.seq = 0
        self.live: list[dict] = []      # {"title": creation title, "id": id or None}
        self.retired: list[str] = []    # ids

    def _title(self) -> str:
        self.seq += 1
        return self.rng.choice([f"c{self.index}-{self.seq}", f"c{self.index}-{self.seq} ✓ ünï 日本 \"q\" \\ 😀"])

    def learn_ids(self, state: dict | None) -> None:
        missing = {item["title"]: item for item in self.live if item["id"] is None}
        if not missing or not state:
            return
        for entry in state.get("items", []):
            item = missing.get(entry.get("title"))
            if item is not None:
                item["id"] = entry["id"]

    def reset_from(self, state: dict) -> None:
        """After a reconnect: live = own items not done in the copy; retired = own done."""
        prefix = f"c{self.index}-"
        own = [e for e in state.get("items", []) if str(e.get("title", "")).startswith(prefix)]
        self.live = [{"title": e["title"], "id": e["id"]} for e in own if not e["done"]]
        self.retired = [e["id"] for e in own if e["done"]]

    def next(self, state: dict | None) -> tuple[Any, Expect]:
        self.learn_ids(state)
        known = [item for item in self.live if item["id"] is not None]
        r = self.rng.random()
        if r < 0.22 or not self.live:
            title = self._title()
            self.live.append({"title": title, "id": None})
            return {"type": "add", "title": title}, Expect("ack", "always", label="add")
        if r < 0.32 and known:
            item = self.rng.choice(known)
            self.live.remove(item)
            self.retired.append(item["id"])
            return {"type": "toggle", "id": item["id"]}, Expect("ack", "always", label="toggle")
        if r < 0.40 and known:
            item = self.rng.choice(known)
            return {"type": "rename", "id": item["id"], "title": self._title()}, Expect("ack", "always", label="rename")
        if r < 0.46 and known:
            item = self.rng.choice(known)
            self.live.remove(item)
            return {"type": "remove", "id": item["id"]}, Expect("ack", "always", label="remove")
        if r < 0.54 and len(self.live) >= 1:
            if len(self.live) >= 2 and self.rng.random() < 0.85:
                a, b = self.rng.sample(range(len(self.live)), 2)
                return {"type": "move", "from": a, "to": b}, Expect("ack", "always", label="move")
            a = self.rng.randrange(len(self.live))
            return {"type": "move", "from": a, "to": a}, Expect("ack", "never", label="move-same")
        if r < 0.58:
            return "clearCompleted" if self.rng.random() < 0.5 else {"type": "clearCompleted"}, Expect("ack", "maybe", label="clear")
        if r < 0.66 and self.retired:
            target = self.rng.choice(self.retired)
            choice = self.rng.randrange(3)
            if choice == 0:
                return {"type": "toggle", "id": target}, Expect("either", "always", label="toggle-retired")
            if choice == 1:
                return {"type": "rename", "id": target, "title": self._title()}, Expect("either", "always", label="rename-retired")
            self.retired.remove(target)
            return {"type": "remove", "id": target}, Expect("either", "always", label="remove-retired")
        return self._invalid(known)

    def _invalid(self, known: list[dict]) -> tuple[Any, Expect]:
        self.seq += 1
        nope = f"nope-{self.index}-{self.seq}"
        choices = [
            ({"type": "toggle", "id": nope}, "toggle-unknown-id"),
            ({"type": "remove", "id": nope}, "remove-unknown-id"),
            ({"type": "rename", "id": nope, "title": "t"}, "rename-unknown-id"),
            ({"type": "add", "title": ""}, "empty-title"),
            ({"type": "add", "title": "x" * 201}, "long-title"),
            ({"type": "move", "from": -1, "to": 0}, "move-negative"),
            ({"type": "move", "from": 0, "to": 1_000_000}, "move-out-of-range"),
            ({"type": "add"}, "missing-title"),
            ({"type": "move", "from": "0", "to": 1}, "mistyped-from"),
            ({"type": "toggle", "id": nope, "extra": True}, "extra-member"),
        ]
        if known:
            choices.append(({"type": "rename", "id": self.rng.choice(known)["id"], "title": ""}, "rename-empty"))
        if self.rng.random() < 0.05:
            return {"type": "teleport"}, Expect("error", code="unknown_action", label="unknown-action")
        action, label = self.rng.choice(choices)
        return action, Expect("error", label=label)


# ---------------------------------------------------------------------------------------
# Driving a workload and checking its replies
# ---------------------------------------------------------------------------------------

@dataclasses.dataclass
class Sent:
    client: int
    reactor: str
    action: Any
    expect: Expect
    ref: Any
    connection: int
    future: asyncio.Future

    @property
    def reply(self) -> dict | None:
        return self.future.result() if self.future.done() else None


class WorkloadDriver:
    """Runs a random doc+todo workload on one client with up to `window` actions in
    flight. `hook(step)` (optional, awaited before each action) lets a test disconnect,
    wait and re-join at chosen moments; the driver only sends while connected."""

    def __init__(self, client: SyncClient, index: int, doc: str, todo: str, seed: int,
                 actions: int, window: int = 16, doc_share: float = 0.5):
        self.client = client
        self.index = index
        self.doc, self.todo = doc, todo
        self.rng = random.Random(seed)
        self.actions = actions
        self.window = window
        self.doc_share = doc_share
        self.doc_work = DocWorkload(index, random.Random(seed * 7 + 1))
        self.todo_work = TodoWorkload(index, random.Random(seed * 7 + 2))
        self.sent: list[Sent] = []

    def _act(self, reactor: str, action: Any, expect: Expect) -> Sent:
        future = self.client.act(reactor, action)
        record = Sent(self.index, reactor, action, expect, self.client.last_ref, self.client.connections, future)
        self.sent.append(record)
        return record

    async def setup(self) -> None:
        action, expect = self.doc_work.setup()
        reply = await asyncio.wait_for(self._act(self.doc, action, expect).future, 20)
        assert reply["type"] == "ack", reply

    def reset_models(self) -> None:
        """Re-derives the own-subtree and own-item models from the copies (after a resync)."""
        self.doc_work.reset_from(self.client.copy(self.doc).state or {})
        self.todo_work.reset_from(self.client.copy(self.todo).state or {})

    async def run(self, hook: Callable[[int], Any] | None = None) -> None:
        in_flight = asyncio.Semaphore(self.window)
        for step in range(self.actions):
            if hook is not None:
                await hook(step)
            await in_flight.acquire()
            if self.rng.random() < self.doc_share:
                reactor, work = self.doc, self.doc_work
            else:
                reactor, work = self.todo, self.todo_work
            action, expect = work.next(self.client.copy(reactor).state)
            record = self._act(reactor, action, expect)
            record.future.add_done_callback(lambda _: in_flight.release())
        await asyncio.wait_for(asyncio.gather(*(r.future for r in self.sent)), 60)


def check_replies(sent: list[Sent], lost_ok: bool = False, valid_may_fail: bool = False) -> tuple[list[str], dict]:
    """Every action got one reply matching its expectation. Returns (problems, counts)."""
    problems: list[str] = []
    counts = {"ack": 0, "error": 0, "lost": 0, "expectedErrors": 0, "racyAcks": 0, "racyErrors": 0}
    for record in sent:
        reply = record.reply
        where = f"client {record.client} {record.reactor} {record.expect.label} {json.dumps(record.action)[:120]}"
        if reply is None:
            problems.append(f"no reply: {where}")
            continue
        kind = reply.get("type")
        if kind == LOST["type"]:
            counts["lost"] += 1
            if not lost_ok:
                problems.append(f"reply lost: {where}")
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "ack" and reply.get("reactor") != record.reactor:
            problems.append(f"ack names {reply.get('reactor')}: {where}")
        outcome = record.expect.outcome
        if outcome == "ack":
            if kind == "ack":
                continue
            if valid_may_fail and kind == "error" and reply.get("code") == "invalid_action":
                counts["racyErrors"] += 1
                continue
            problems.append(f"expected ack, got {reply}: {where}")
        elif outcome == "error":
            if kind == "error" and reply.get("code") == record.expect.code:
                counts["expectedErrors"] += 1
            else:
                problems.append(f"expected error {record.expect.code}, got {reply}: {where}")
        else:
            if kind == "ack":
                counts["racyAcks"] += 1
            elif kind == "error" and reply.get("code") == "invalid_action":
                counts["racyErrors"] += 1
            else:
                problems.append(f"expected ack or invalid_action, got {reply}: {where}")
    return problems, counts


def check_version_accounting(sent: list[Sent], reactor: str, final_version: int) -> tuple[list[str], dict]:
    """Every version bump is attributable to exactly one acked action, and no error moved
    the version. Acks carry the version at acceptance and actions run one at a time, so:
    an acked action that always changes the state owns version ack+1 alone (its ack
    version is unique); every v in 0..final-1 is the ack version of some acked action
    that may change the state; and final == #always + #(maybe that changed)."""
    problems: list[str] = []
    acked = [r for r in sent if r.reactor == reactor and r.reply and r.reply.get("type") == "ack"]
    by_version: dict[int, list[Sent]] = {}
    for record in acked:
        by_version.setdefault(record.reply["version"], []).append(record)
    always = [r for r in acked if r.expect.changes == "always"]
    maybe = [r for r in acked if r.expect.changes == "maybe"]
    for version, records in by_version.items():
        if not 0 <= version <= final_version:
            problems.append(f"{reactor}: ack version {version} outside 0...{final_version}")
        changers = [r for r in records if r.expect.changes == "always"]
        if len(changers) > 1:
            problems.append(f"{reactor}: {len(changers)} state-changing actions acked at version {version}: "
                            + ", ".join(r.expect.label for r in changers))
        if changers and version >= final_version:
            problems.append(f"{reactor}: a state-changing action acked at {version} but the final version is {final_version}")
    for version in range(final_version):
        if not any(r.expect.changes in ("always", "maybe") for r in by_version.get(version, [])):
            problems.append(f"{reactor}: version {version + 1} has no acked action that could have made it")
            if len(problems) > 20:
                break
    if not len(always) <= final_version <= len(always) + len(maybe):
        problems.append(f"{reactor}: final version {final_version} not within #always {len(always)} .. +#maybe {len(maybe)}")
    return problems, {"acked": len(acked), "alwaysChanging": len(always), "maybeChanging": len(maybe),
                      "finalVersion": final_version}
