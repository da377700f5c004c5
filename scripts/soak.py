#!/usr/bin/env python3
"""Soak: a real daemon under connection churn, joins, actions, slow readers, every attack
of the issue "Bounded under attack" and those of issue 30 ("Nothing lost, nothing
crashes") at once, for a while: `--duration SECONDS`, or the environment's SOAK_SECONDS,
default 600 (`--short`: 60). Run by `make soak` (`make soak SOAK_SECONDS=120` for a
short run), against the release build; not part of `make test`. The attacks' periods
shrink with the duration (down to a quarter of those below at 150 s or less), so that a
short run still sees each several times. `--only NAMES` (debugging) runs only the named
attacks and background loads, beside the well-behaved clients; the others' checks are
skipped.

The daemon runs with issue 30's limits: `limits.maxMemoryBytes` 256 MiB (a budget the
memory attack reaches), `limits.maxInstancesPerUser` 32 (the soak is anonymous: per peer
address, and each attacker has addresses of its own in 127.0.0.0/8), and the defaults of
`limits.joinsPerSecond` (20, bursts of 40) and of `reactors.doc.maxDepth`, `maxElements`
and `maxOperations` (64, 10,000, 256).

Well-behaved clients (Tests/e2e/sync_harness.py SyncClients with a random doc+todo
workload, reconnecting with `since` now and then) keep their own RFC 6902 copies. Beside
them, each in a thread of its own with its own period, so that they overlap:
  churn         connections opened, joined, acted on, closed, all the time
  slow readers  joined to busy docs, never reading (small receive buffers)
  titles        64 KB one-"character" todo titles (finding 6)
  crowd         150 connections at 200 actions/s each on 3 docs (finding 2), on and off
  writers       10 connections as fast as their sockets take it (finding 2), on and off
  replies       a non-reader sending 120,000 invalid messages (finding 1: closed with 1013)
  history       60 KB values replaced on 2 docs (finding 3)
  sockets       CONNECTs, the 257th socket from an address, and holders filling every
                descriptor the daemon may use (finding 5; the daemon runs under an
                open-file limit of 2048); meanwhile GET /healthz from a fresh address
                must be answered 200 (issue 30: from the descriptor reserve)
  instances     one address after another creating new instances up to its quota, until
                the table is full: refused naming limits.maxInstances (finding 4)
and issue 30's, each checked against what the contract says (docs/protocol.md):
  deep          36 sets nesting 500 levels (the crash of finding 1): invalid_action naming
                reactors.doc.maxDepth, the level and where; a doc at the bound accepted
                and patched at its deepest level; one level more refused, by set and patch
  arrays        500 appends and 500 inserts (pipelined) into a 9,000-element array up to
                reactors.doc.maxElements, then one more of each refused naming it; a patch
                of maxOperations operations accepted, one more refused naming maxOperations
  joins         one connection sending 200 joins of an 8 KB doc at once: rate_limited
                naming limits.joinsPerSecond, no more snapshots than the bucket allows
                (burst + rate x the time taken); another connection from the same address
                joining meanwhile gets its snapshot
  quota         one address creating instances past limits.maxInstancesPerUser: overloaded
                naming the quota and what the address holds; joining an existing reactor
                still works for it, and another address still creates instances
  http          two Content-Lengths, Content-Length with Transfer-Encoding, a folded header
                (400), chunked (501), each with a request smuggled behind it (never
                answered); a rebinding Host on a request and on an upgrade (421 naming
                security.allowedHosts); every one closed; a POST without Content-Length
                answered at once (405, an empty body)
  memory        6 addresses at once joining 32 new docs each and filling them with 60 KB
                values (about 2 MB a doc with its history, 384 MB in all) until they get
                overloaded naming limits.maxMemoryBytes (past 90 % of it), 3 rounds more,
                a fresh address's creating join; then they go, and the daemon must take
                actions again (recovered: under pressure idle instances are evicted at once)
Past 90 % of the memory budget every action and every creating join is `overloaded`,
whatever the attack: each attack counts those answers as `memoryRefused` (and stops its
run, whose next steps would depend on them); any other answer the contract does not give
is an error of that attack. limits.tlsHandshakesPerSecond is not exercised (the soak's
daemon has no TLS; Tests/e2e/test_attacks_handshakes.py covers it).

Every second the daemon's resident memory, open descriptors and CPU (/proc) and the
machine's load average are sampled (and RSS after each round of the memory attack); every
5 s its /metrics (open connections, instances, queued output). Resident memory must stay
within the budget plus what the idle process held just after its start, at every sample.
At the end: the attacks stop, the daemon must take actions again, every well-behaved copy
must equal a fresh snapshot, the daemon cools down until its idle instances are evicted
(60 s idle, a pass every 30 s) and its CPU is quiet, memory and descriptors must be back
near where they were after the warm-up, and SIGTERM must end it with status 0. The bounds
are generous (the machine is shared); nothing is timed. Prints a table with the actions,
connections and errors the daemon counted, the memory budget and each attack's tallies;
writes test-output/soak-report.json (the daemon's log is test-output/soak.log, fresh each
run; its store is removed at the end). Exit status 1 when a check fails.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import pathlib
import random
import re
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))

from conftest import OUTPUT, Daemon, base_config  # noqa: E402
from load_tools import (  # noqa: E402
    Flood, FloodSpec, HandshakeError, RawClient, client_frame, cpu_seconds, http_get, open_descriptors, open_many,
    open_socket, rss_bytes,
)
from sync_harness import SyncClient, WorkloadDriver, canonical, mib, settle  # noqa: E402

OPEN_FILES = 2048
DOC, TODO = "doc/soak", "todo/soak"
CROWD_DOCS = ["doc/crowd0", "doc/crowd1", "doc/crowd2"]
WRITER_DOCS = ["doc/writers0", "doc/writers1"]
HISTORY_DOCS = ["doc/history0", "doc/history1"]
CHURN_REACTORS = ["counter/churn0", "counter/churn1", "doc/churn2", "todo/churn3"]
# the docs of issue 30's attacks on a doc's bounds, held (so that they exist) by the warm-up's holder
DEEP_DOC, ARRAY_DOC, JOIN_DOC, PROBE_DOC = "doc/deep", "doc/arrays", "doc/joins", "doc/memprobe"
# issue 30's limits as the soak configures them: the memory budget, and a quota per user
# (per peer address: the soak is anonymous) small enough for one address to go past it;
# limits.joinsPerSecond (20, bursts of 40) and the doc bounds keep their defaults.
MEMORY_BUDGET = 256 * 1024 * 1024
QUOTA = 32
JOIN_RATE, JOIN_BURST = 20, 40
MAX_DEPTH, MAX_ELEMENTS, MAX_OPERATIONS = 64, 10_000, 256
TODO_MAX_ITEMS = 1000   # reactors.todo.maxItems (its default)
# the memory attack: this many addresses at once, each joining QUOTA docs and filling each
# with 16 values of 60 KB (a doc's state just under reactors.doc.maxBytes, and as much
# history): about 2 MB a doc, 384 MB in all, well past the budget
MEMORY_ADDRESSES = 6
MEMORY_VALUES, MEMORY_VALUE_BYTES = 16, 60_000
MEMORY_JOIN_BATCH = 8
MEMORY_WINDOW = 3
MEMORY_ROUNDS_AFTER = 3
# what the instances and quota attacks count each answer to a creating join as
INSTANCE_TALLIES = {"tableFull": "refused", "quota": "quotaRefused", "memory": "memoryRefused"}
QUOTA_TALLIES = {"quota": "refused", "memory": "memoryRefused"}
# the HTTP attack: (name, request, status, what the body says); PORT is the daemon's port.
# The smuggling shapes carry a second request behind them, never to be answered.
SMUGGLED = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
HTTP_CASES = [
    ("twoLengths", b"POST /admin/revoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nContent-Length: 7\r\n\r\n{}"
     + SMUGGLED, 400, b"two different Content-Length values are not accepted"),
    ("lengthAndChunked", b"POST /admin/revoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked"
     b"\r\n\r\n{}" + SMUGGLED, 400, b"Content-Length together with Transfer-Encoding"),
    ("folded", b"POST /admin/revoke HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Note: one\r\n  two\r\nContent-Length: 2\r\n\r\n{}"
     + SMUGGLED, 400, b"folded header lines (obs-fold) are not accepted"),
    ("chunked", b"POST /admin/revoke HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
     + SMUGGLED, 501, b"Transfer-Encoding is not implemented"),
    ("rebindingHost", b"GET /healthz HTTP/1.1\r\nHost: evil.example:PORT\r\nConnection: close\r\n\r\n", 421,
     b"host 'evil.example:PORT' is not served here (security.allowedHosts)"),
    ("rebindingUpgrade", b"GET /ws HTTP/1.1\r\nHost: evil.example:PORT\r\nOrigin: http://evil.example:PORT\r\n"
     b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
     b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: reactorhub.v1\r\n\r\n", 421,
     b"host 'evil.example:PORT' is not served here (security.allowedHosts)"),
    ("postWithoutLength", b"POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 405,
     b"only GET and HEAD are served"),
]
# Checks at the end (generous: the machine is shared; see BENCHMARKS.md, "Soak").
RSS_PEAK_BOUND = 512 * 1024 * 1024
RSS_END_SLACK = 48 * 1024 * 1024
FDS_END_SLACK = 8
QUIET_SHARE = 0.15
# The cool-down waits at most this long for the eviction of every instance and a quiet CPU.
COOL_DOWN_LIMIT = 240
DEFAULT_SECONDS = 600


class Tally:
    """Counts by name, from every thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.errors: list[str] = []

    def add(self, name, n=1):
        with self.lock:
            self.counts[name] += n

    def error(self, where, error):
        with self.lock:
            self.counts[f"{where}.errors"] += 1
            if len(self.errors) < 40:
                self.errors.append(f"{where}: {error!r}"[:300])


def nested(depth, leaf=1):
    """`{"k":{"k":…leaf…}}`: `depth` objects."""
    value = leaf
    for _ in range(depth):
        value = {"k": value}
    return value


def act(reactor, ref, action):
    return {"type": "action", "reactor": reactor, "ref": ref, "action": action}


def is_memory_refusal(reply):
    """`overloaded` naming limits.maxMemoryBytes: the daemon past 90 % of its memory budget."""
    return reply.get("code") == "overloaded" and "(limits.maxMemoryBytes)" in reply.get("message", "")


def http_exchange(port, request, source=None, timeout=15):
    """Sends `request` on a fresh socket and reads until the daemon closes it; returns (what
    it answered, whether it closed the connection within `timeout`). A socket refused at
    accept answers nothing."""
    try:
        sock = open_socket(port, source=source, timeout=timeout)
    except OSError:
        return b"", True
    with sock:
        data = b""
        try:
            sock.sendall(request)
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    return data, True
                data += chunk
        except TimeoutError:
            return data, False
        except OSError:   # reset: closed, maybe with our request unread
            return data, True


class Soak:
    def __init__(self, duration, only=None):
        self.duration = duration
        self.only = only
        # the attacks' periods and lengths, relative to a 10-minute run
        self.scale = min(1.0, max(0.25, duration / DEFAULT_SECONDS))
        self.short = self.scale < 0.5
        self.max_instances = 300 if self.short else 1000
        self.stop = threading.Event()
        self.tally = Tally()
        self.samples: list[dict] = []
        self.workdir = pathlib.Path(tempfile.mkdtemp(prefix="rh-soak-"))
        config = base_config(
            logLevel="info",
            # outboundQueueBytes 256 KiB: the reply flood reaches the 1013 bound (4x) within
            # seconds even on a loaded machine, before the keepalive (60 s) would drop it
            # maxMemoryBytes: a budget the memory attack reaches (the default, half of the
            # machine's memory, it would not); maxInstancesPerUser: see QUOTA
            limits={"actionsPerSecond": 1_000_000, "actionBurst": 1_000_000, "maxInstances": self.max_instances,
                    "outboundQueueBytes": 256 * 1024, "maxMemoryBytes": MEMORY_BUDGET, "maxInstancesPerUser": QUOTA},
            shutdownGraceMs=2000,
            persistence={"kind": "sqlite", "path": str(self.workdir / "soak.sqlite"), "flushMs": 200},
            metrics={"enabled": True},
            reactors={"counter": {"delayMs": 50}, "weather": {"latencyMs": 50}},
        )
        (OUTPUT / "soak.log").unlink(missing_ok=True)   # this run's log only (the Daemon appends)
        self.daemon = Daemon(config, self.workdir, "soak", open_files=OPEN_FILES)
        self.pid = self.daemon.process.pid
        self.port = self.daemon.port
        # the idle process's memory: RSS may reach the budget plus this much, never more
        self.idle_rss = rss_bytes(self.pid)
        self.memory_samples: list[int] = []      # the memory attack's own RSS samples, after each round
        self.memory_runs: list[dict] = []
        self.runs: collections.Counter = collections.Counter()
        self.phase_lock = threading.Lock()
        self.active: collections.Counter = collections.Counter()

    # -- sampling ----------------------------------------------------------------------

    def sampler(self):
        last_cpu, last = cpu_seconds(self.pid), time.monotonic()
        started = last
        while not self.stop.is_set() or not self.sampling_done.is_set():
            time.sleep(1.0)
            try:
                now, cpu = time.monotonic(), cpu_seconds(self.pid)
                with self.phase_lock:
                    active = sorted(name for name, n in self.active.items() if n > 0)
                sample = {"t": round(now - started, 1), "rss": rss_bytes(self.pid),
                          "fds": open_descriptors(self.pid), "cpu": (cpu - last_cpu) / (now - last),
                          "load1": os.getloadavg()[0], "active": active}
                if len(self.samples) % 5 == 0:
                    sample.update(self.gauges())
                self.samples.append(sample)
                last_cpu, last = cpu, now
            except (OSError, ValueError):
                return

    def metrics(self):
        """The daemon's /metrics as {name{labels}: value}; {} when it does not answer (while
        the sockets phase holds every descriptor, new sockets are refused)."""
        try:
            status, body = http_get(self.port, "/metrics", source="127.0.0.2", timeout=5)
        except (OSError, ValueError):
            return {}
        if status != 200:
            return {}
        values = {}
        for line in body.decode(errors="replace").splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                try:
                    values[name] = float(value)
                except ValueError:
                    pass
        return values

    def gauges(self):
        values = self.metrics()
        if not values:
            return {}
        return {"connections": int(values.get("reactorhub_connections", 0)),
                "instances": int(sum(v for k, v in values.items() if k.startswith("reactorhub_instances{"))),
                "queuedBytes": int(values.get("reactorhub_outbound_queued_bytes", 0))}

    def phase(self, name):
        soak = self

        class Active:
            def __enter__(self):
                with soak.phase_lock:
                    soak.active[name] += 1

            def __exit__(self, *_):
                with soak.phase_lock:
                    soak.active[name] -= 1

        return Active()

    def every(self, period, first, body, name):
        """Runs `body` at `first` s, then every `period` s, until the soak stops."""
        def loop():
            if self.stop.wait(first):
                return
            while not self.stop.is_set():
                started = time.monotonic()
                try:
                    with self.phase(name):
                        body()
                except (HandshakeError, ConnectionResetError):   # refused while the sockets phase fills them
                    self.tally.add(f"{name}.refusedAtOpen")
                except Exception as error:  # counted; the soak goes on
                    self.tally.error(name, error)
                self.stop.wait(max(0.0, period - (time.monotonic() - started)))
        thread = threading.Thread(target=loop, name=name, daemon=True)
        thread.start()
        return thread

    def wanted(self, name):
        return self.only is None or name in self.only

    def sleep(self, seconds):
        return self.stop.wait(seconds)

    # -- background load ---------------------------------------------------------------

    def churn(self):
        rng = random.Random(7)
        while not self.stop.is_set():
            try:
                client = RawClient(self.port, source=f"127.0.0.{30 + rng.randrange(4)}").open(timeout=10)
            except (HandshakeError, ConnectionError, OSError, TimeoutError) as error:
                self.tally.add("churn.refused")
                self.sleep(0.2)
                continue
            try:
                reactor = rng.choice(CHURN_REACTORS)
                client.request({"type": "join", "reactor": reactor, "ref": 1}, timeout=30)
                if reactor.startswith("counter/"):
                    client.request({"type": "action", "reactor": reactor, "action": "increase", "ref": 2}, timeout=30)
                client.request({"type": "leave", "reactor": reactor, "ref": 3}, timeout=30)
                self.tally.add("churn.cycles")
            except (ConnectionError, TimeoutError, OSError) as error:
                self.tally.error("churn", error)
            finally:
                client.close()
            self.sleep(0.05)

    def slow_readers(self):
        readers = []
        while not self.stop.is_set():
            try:
                if len(readers) >= 3:
                    readers.pop(0).close()
                try:
                    reader = RawClient(self.port, rcvbuf=4096, source="127.0.0.34", keep_text=False).open(timeout=10)
                except TimeoutError:
                    # while the sockets attack holds every descriptor, new sockets wait in
                    # the listen backlog or are closed at accept: not answered is expected
                    if not self.descriptors_short():
                        raise
                    self.tally.add("slow.refusedAtOpen")
                    self.sleep(20)
                    continue
                doc = random.choice(CROWD_DOCS + WRITER_DOCS)
                reader.send_now(client_frame({"type": "join", "reactor": doc}))
                readers.append(reader)
                self.tally.add("slow.readers")
            except (HandshakeError, ConnectionResetError):
                self.tally.add("slow.refusedAtOpen")
            except (ConnectionError, OSError, TimeoutError) as error:
                self.tally.error("slow", error)
            self.sleep(20)
        for reader in readers:
            reader.close()

    def titles(self):
        client = RawClient(self.port, source="127.0.0.36").open(timeout=10)
        client.request({"type": "join", "reactor": "todo/titles", "ref": "j"}, timeout=30)
        huge = "e" + "\u0301" * 32001
        n = 0
        while not self.sleep(2):
            n += 1
            reply = client.request({"type": "action", "reactor": "todo/titles", "ref": n,
                                    "action": {"type": "add", "title": huge}}, timeout=60)
            if reply.get("code") == "invalid_action" and "maxTitleBytes" in reply.get("message", ""):
                self.tally.add("titles.refused")
            elif is_memory_refusal(reply):
                self.tally.add("titles.memoryRefused")
            else:
                self.tally.error("titles", reply)
        client.close()

    # -- the attacks, on and off -------------------------------------------------------

    def flood(self, spec, seconds, name):
        flood = Flood(spec, start_method="spawn")
        try:
            flood.start(timeout=90)
        except (RuntimeError, TimeoutError) as error:
            flood.kill()
            if "opening" in str(error):   # refused at accept while the sockets phase fills them
                self.tally.add(f"{name}.refusedAtOpen")
            else:
                self.tally.error(name, error)
            return
        self.tally.add(f"{name}.runs")
        self.sleep(seconds)
        flood.stop_sending()
        figures = flood.finish("close")
        self.tally.add(f"{name}.actions", figures.get("actionsQueued", 0))

    def crowd(self):
        self.flood(FloodSpec(self.port, 150, CROWD_DOCS, rate=200, sources=["127.0.0.21", "127.0.0.22"],
                             name="crowd"), max(6, 20 * self.scale), "crowd")

    def writers(self):
        self.flood(FloodSpec(self.port, 10, WRITER_DOCS, rate=None, pad=2000, sources=["127.0.0.24"],
                             name="writer"), max(5, 15 * self.scale), "writers")

    def replies(self):
        log_from = self.daemon.log_path.stat().st_size
        attacker = RawClient(self.port, rcvbuf=4096, source="127.0.0.25", keep_text=False).open(timeout=10)
        session = attacker.hello["session"]
        # 120,000 (twice the issue's): ~14 MB of replies, past the 4 MiB of replies that
        # close a connection (1013) plus what the kernel buffers take (up to ~4 MB)
        attacker.queue(client_frame({"type": "nope"}) * 120_000)
        deadline = time.monotonic() + 90
        while attacker.pending and not attacker.error and time.monotonic() < deadline:
            attacker.flush()
            time.sleep(0.005)
        code = None
        while time.monotonic() < deadline and code is None:
            with open(self.daemon.log_path, "rb") as log:
                log.seek(log_from)
                text = log.read().decode(errors="replace")
            found = re.findall(rf"connection closed code=(\d+) .*session={session}\b", text)
            code = int(found[-1]) if found else None
            time.sleep(0.5)
        unsent = len(attacker.pending)
        attacker.close()
        self.tally.add(f"replies.closed{code}")
        if code != 1013:
            self.tally.error("replies", f"{session} closed {code}; the attacker saw {attacker.error}, "
                                        f"{attacker.sent_bytes} bytes sent, {unsent} unsent")

    def history(self):
        client = RawClient(self.port, source="127.0.0.26").open(timeout=10)
        try:
            for doc in HISTORY_DOCS:
                client.request({"type": "join", "reactor": doc, "ref": f"j{doc}"}, timeout=60)
            for k in range(64):
                for doc in HISTORY_DOCS:
                    client.send_now(client_frame({"type": "action", "reactor": doc, "ref": f"{doc}{k}",
                                                  "action": {"type": "set", "path": "/v", "value": f"{k:06d}" + "x" * 60000}}))
                waiting = {f"{doc}{k}" for doc in HISTORY_DOCS}   # replies of two instances: any order
                while waiting:
                    waiting.discard(client.read_until(lambda m: m.get("ref") in waiting, timeout=60)[-1]["ref"])
                if self.stop.is_set():
                    break
            self.tally.add("history.runs")
        finally:
            client.close()

    def sockets(self):
        # CONNECTs: closed by the daemon
        tunnels = []
        for _ in range(20):
            try:
                sock = open_socket(self.port, source="127.0.0.27", timeout=5)
                sock.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
                sock.settimeout(10)
                tunnels.append(sock)
            except OSError as error:
                self.tally.error("sockets.connect", error)
        for sock in tunnels:
            try:
                self.tally.add("sockets.connectClosed" if sock.recv(1024) == b"" else "sockets.connectAnswered")
            except TimeoutError:
                self.tally.add("sockets.connectOpen")
            except OSError:   # reset
                self.tally.add("sockets.connectClosed")
            sock.close()
        # the 257th socket from one address, and every descriptor the daemon may use
        held, refused, pending = open_many(self.port, ["127.0.0.5"], 257, timeout=30)
        self.tally.add("sockets.perAddressHeld", len(held))
        self.tally.add("sockets.perAddressRefused", len(refused))
        holders = [f"127.0.0.{40 + k}" for k in range(8)]
        more, refused_more, pending_more = open_many(self.port, holders, 2000, timeout=30)
        self.tally.add("sockets.fillHeld", len(more))
        self.tally.add("sockets.fillRefused", len(refused_more))
        self.tally.add("sockets.fillUnanswered", len(pending_more))
        # issue 30, finding 9: /healthz stays reachable from a fresh address meanwhile
        # (served from the descriptor reserve when the descriptors are short)
        try:
            status, body = http_get(self.port, "/healthz", source="127.0.0.57", timeout=10)
        except OSError as error:
            status, body = None, repr(error).encode()
        if (status, body) == (200, b"ok\n"):
            self.tally.add("sockets.healthzWhileFull")
        else:
            self.tally.error("sockets.healthz", f"GET /healthz while the descriptors were held: {status} {body[:100]!r}")
        self.sleep(max(3, 8 * self.scale))
        for client in held + more:
            client.close()
        for sock in pending + pending_more:
            sock.close()

    # -- issue 30's attacks, on and off ------------------------------------------------

    def run_number(self, name):
        with self.phase_lock:
            self.runs[name] += 1
            return self.runs[name]

    def expect(self, name, reply, code=None, naming=None, tally=None):
        """Checks one answer against the contract: an `ack` when `code` is None, else an
        error of `code` whose message holds `naming`. Past 90 % of the memory budget every
        action and every join that would create an instance is `overloaded` naming
        limits.maxMemoryBytes, whatever the attack: counted as such. Returns "ok", "memory"
        or "wrong" (recorded as an error)."""
        if is_memory_refusal(reply):
            self.tally.add(f"{name}.memoryRefused")
            return "memory"
        if code is None:
            ok = reply.get("type") == "ack"
        else:
            ok = reply.get("type") == "error" and reply.get("code") == code and naming in reply.get("message", "")
        if ok:
            if tally:
                self.tally.add(f"{name}.{tally}")
            return "ok"
        self.tally.error(name, f"expected {code or 'ack'}{f' naming {naming}' if naming else ''}, got {reply}")
        return "wrong"

    def deep(self):
        """Finding 1 and 5: documents nested past reactors.doc.maxDepth. The issue's 36 sets
        of 500 levels each are refused naming the bound (and the level and location); a
        document exactly at the bound is accepted, edited at its deepest level by a patch,
        and refused one level further by a set and by a patch."""
        client = RawClient(self.port, source="127.0.0.50", name="deep").open(timeout=10)
        try:
            client.request({"type": "join", "reactor": DEEP_DOC, "ref": "j"}, timeout=30)
            client.send_now(b"".join(client_frame(act(DEEP_DOC, f"d{n}", {"type": "set", "path": "/a", "value": nested(500)}))
                                     for n in range(36)))
            answers = self.answers(client, [f"d{n}" for n in range(36)])
            message = (f"set does not apply: the document would be nested 501 levels deep at '/a', more than "
                       f"{MAX_DEPTH} (reactors.doc.maxDepth)")
            if any(self.expect("deep", answers[f"d{n}"], "invalid_action", message, "refused") != "ok" for n in range(36)):
                return
            at_bound = "/a" + "/k" * (MAX_DEPTH - 2)     # the root, /a and 62 objects: the leaf sits at depth 64
            steps = [
                ({"type": "set", "path": "/a", "value": nested(MAX_DEPTH - 1)}, None, "accepted"),
                ({"type": "patch", "ops": [{"op": "replace", "path": at_bound + "/k", "value": 2}]}, None, "accepted"),
                ({"type": "set", "path": at_bound + "/k", "value": {}}, "invalid_action", "refused"),
                ({"type": "patch", "ops": [{"op": "add", "path": at_bound + "/x", "value": {"y": 1}}]}, "invalid_action", "refused"),
                ({"type": "set", "path": "/a", "value": 0}, None, "accepted"),
            ]
            for n, (action, code, tally) in enumerate(steps):
                reply = client.request(act(DEEP_DOC, f"s{n}", action), timeout=30)
                # a refusal names the level, where, and the bound
                naming = f"{MAX_DEPTH + 1} levels deep at '{at_bound}" if code else None
                if self.expect("deep", reply, code, naming, tally) != "ok":
                    return
                if code and f"more than {MAX_DEPTH} (reactors.doc.maxDepth)" not in reply["message"]:
                    self.tally.error("deep", f"the refusal does not name the bound: {reply}")
            self.tally.add("deep.runs")
        finally:
            client.close()

    def arrays(self):
        """Finding 2: edits whose cost follows the array they touch. One connection appends
        and inserts (pipelined, 500 of each) into a 9,000-element array up to
        reactors.doc.maxElements, then one more of each is refused naming the bound; a patch
        of reactors.doc.maxOperations operations is accepted, one more operation refused."""
        client = RawClient(self.port, source="127.0.0.51", name="arrays").open(timeout=10)
        try:
            client.request({"type": "join", "reactor": ARRAY_DOC, "ref": "j"}, timeout=30)
            start = MAX_ELEMENTS - 1000
            if self.expect("arrays", client.request(act(ARRAY_DOC, "fill", {"type": "set", "path": "/a", "value": list(range(start))}),
                                                    timeout=60)) != "ok":
                return
            frames = []
            for n in range(500):
                frames.append(client_frame(act(ARRAY_DOC, f"p{n}", {"type": "set", "path": "/a/-", "value": n})))
                frames.append(client_frame(act(ARRAY_DOC, f"i{n}", {"type": "patch", "ops": [{"op": "add", "path": "/a/0", "value": n}]})))
            client.send_now(b"".join(frames), timeout=30)
            answers = self.answers(client, [r for n in range(500) for r in (f"p{n}", f"i{n}")], timeout=120)
            outcomes = [self.expect("arrays", reply) for reply in answers.values()]
            if set(outcomes) != {"ok"}:
                return
            self.tally.add("arrays.accepted", len(outcomes))
            full = f"would hold {MAX_ELEMENTS + 1} elements, more than {MAX_ELEMENTS} (reactors.doc.maxElements)"
            replace = [{"op": "replace", "path": "/a/0", "value": n} for n in range(MAX_OPERATIONS + 1)]
            steps = [
                ({"type": "set", "path": "/a/-", "value": 1}, "invalid_action", full, "elementsRefused"),
                ({"type": "patch", "ops": [{"op": "add", "path": "/a/0", "value": 1}]}, "invalid_action", full, "elementsRefused"),
                ({"type": "patch", "ops": [{"op": "remove", "path": "/a/0"}, {"op": "add", "path": "/a/0", "value": 1}]},
                 None, None, "accepted"),
                ({"type": "patch", "ops": replace}, "invalid_action",
                 f"the patch has {MAX_OPERATIONS + 1} operations, more than {MAX_OPERATIONS} (reactors.doc.maxOperations)",
                 "operationsRefused"),
                ({"type": "patch", "ops": replace[:MAX_OPERATIONS]}, None, None, "accepted"),
                ({"type": "set", "path": "/a", "value": []}, None, None, "accepted"),
            ]
            for n, (action, code, naming, tally) in enumerate(steps):
                if self.expect("arrays", client.request(act(ARRAY_DOC, f"s{n}", action), timeout=60), code, naming, tally) != "ok":
                    return
            self.tally.add("arrays.runs")
        finally:
            client.close()

    def joins(self):
        """Finding 6: one connection joining as fast as it can (200 joins of a 60 KB doc, sent
        at once): past limits.joinsPerSecond's burst it gets `rate_limited` naming the key,
        and no more snapshots than the bucket allows; another connection from the same
        address, joining meanwhile, gets its snapshot (the bucket is the connection's)."""
        flooder = RawClient(self.port, source="127.0.0.52", name="joins").open(timeout=10)
        bystander = RawClient(self.port, source="127.0.0.52", name="joins-bystander").open(timeout=10)
        try:
            refs = [f"f{n}" for n in range(200)]
            started = time.monotonic()
            flooder.send_now(b"".join(client_frame({"type": "join", "reactor": JOIN_DOC, "ref": ref}) for ref in refs), timeout=30)
            self.expect_snapshot("joins", bystander.request({"type": "join", "reactor": JOIN_DOC, "ref": "b"}, timeout=60),
                                 "bystanderJoined")
            answers = self.answers(flooder, refs, timeout=120)
            elapsed = time.monotonic() - started
            snapshots = sum(1 for reply in answers.values() if reply.get("type") == "snapshot")
            limited = 0
            for reply in answers.values():
                if reply.get("type") != "snapshot":
                    limited += self.expect("joins", reply, "rate_limited", f"(burst {JOIN_BURST}, limits.joinsPerSecond)") == "ok"
            self.tally.add("joins.snapshots", snapshots)
            self.tally.add("joins.rateLimited", limited)
            # the bucket: its burst, then its rate over the time the joins took to answer
            if not 1 <= snapshots <= JOIN_BURST + JOIN_RATE * elapsed + 1:
                self.tally.error("joins", f"{snapshots} joins answered with a snapshot in {elapsed:.1f} s")
            self.tally.add("joins.runs")
        finally:
            flooder.close()
            bystander.close()

    def expect_snapshot(self, name, reply, tally):
        if reply.get("type") == "snapshot":
            self.tally.add(f"{name}.{tally}")
            return True
        self.tally.error(name, f"expected a snapshot, got {reply}")
        return False

    def instance_refusal(self, name, reply):
        """A join that would create an instance: `snapshot` (created), or `overloaded` naming
        limits.maxInstances (the table is full), limits.maxInstancesPerUser (the address's
        quota) or limits.maxMemoryBytes; anything else is an error. Returns which."""
        if reply.get("type") == "snapshot":
            return "created"
        message = reply.get("message", "")
        if reply.get("code") == "overloaded":
            if "(limits.maxInstances)" in message:
                return "tableFull"
            if "(limits.maxInstancesPerUser)" in message:
                return "quota"
            if "(limits.maxMemoryBytes)" in message:
                return "memory"
        self.tally.error(name, f"a creating join answered {reply}")
        return "wrong"

    def instances(self):
        """Finding 4 of 'Bounded under attack' (limits.maxInstances), now that one address
        holds at most its quota: one address after another creates instances (QUOTA + 1 new
        ids each, joined at once), until one is refused every creation for the full table."""
        run = self.run_number("instances")
        for a in range(self.max_instances // QUOTA + 4):
            if self.stop.is_set():
                return
            client = RawClient(self.port, source=f"127.0.1.{a + 1}", name=f"instances{a}").open(timeout=10)
            try:
                refs = [f"i{n}" for n in range(QUOTA + 1)]
                client.send_now(b"".join(client_frame({"type": "join", "reactor": f"doc/new{run}-{a}-{n}", "ref": ref})
                                         for n, ref in enumerate(refs)))
                outcomes = collections.Counter(self.instance_refusal("instances", reply)
                                               for reply in self.answers(client, refs, timeout=60).values())
            finally:
                client.close()
            for outcome, n in outcomes.items():
                self.tally.add(f"instances.{INSTANCE_TALLIES.get(outcome, outcome)}", n)
            if outcomes["tableFull"] == QUOTA + 1:   # one address refused every creation: the table is full
                break
        self.tally.add("instances.runs")

    def quota(self):
        """Finding 6: one address creating instances past limits.maxInstancesPerUser (QUOTA
        for the soak): `overloaded` naming the quota and what it holds; joining an existing
        reactor still works for it, and another address still creates instances."""
        run = self.run_number("quota")
        attacker = RawClient(self.port, source="127.0.0.54", name="quota").open(timeout=10)
        other = None
        try:
            refs = [f"q{n}" for n in range(QUOTA + 4)]
            attacker.send_now(b"".join(client_frame({"type": "join", "reactor": f"doc/quota{run}-{n}", "ref": ref})
                                       for n, ref in enumerate(refs)))
            outcomes = collections.Counter()
            for reply in self.answers(attacker, refs, timeout=60).values():
                outcome = self.instance_refusal("quota", reply)
                outcomes[outcome] += 1
                if outcome == "quota" and f"address 127.0.0.54 holds {QUOTA} instances it created" not in reply["message"]:
                    self.tally.error("quota", f"the refusal does not name what the address holds: {reply}")
            if outcomes["created"] > QUOTA:
                self.tally.error("quota", f"one address created {outcomes['created']} instances in a run, quota {QUOTA}")
            for outcome, n in outcomes.items():
                self.tally.add(f"quota.{QUOTA_TALLIES.get(outcome, outcome)}", n)
            self.expect_snapshot("quota", attacker.request({"type": "join", "reactor": PROBE_DOC, "ref": "existing"}, timeout=30),
                                 "existingJoined")
            other = RawClient(self.port, source="127.0.0.55", name="quota-other").open(timeout=10)
            outcome = self.instance_refusal("quota", other.request({"type": "join", "reactor": f"doc/quota-other{run}", "ref": "o"},
                                                                   timeout=30))
            if outcome == "quota":
                self.tally.error("quota", "another address was refused for the attacker's quota")
            self.tally.add(f"quota.otherAddress.{outcome}")
            self.tally.add("quota.runs")
        finally:
            attacker.close()
            if other is not None:
                other.close()

    def http(self):
        """Findings 7 and 8: request smuggling shapes (two Content-Lengths, Content-Length
        with Transfer-Encoding, a folded header: 400; chunked: 501), each with a second
        request riding behind it that must not be answered; a DNS-rebinding Host, on a plain
        request and on an upgrade: 421 naming security.allowedHosts. Every one closed.
        And a POST without Content-Length has an empty body: answered (405), not held."""
        for name, request, status, reason in HTTP_CASES:
            port = str(self.port).encode()
            request, reason = request.replace(b"PORT", port), reason.replace(b"PORT", port)
            response, closed = http_exchange(self.port, request, source="127.0.0.56")
            if not response and self.descriptors_short():
                self.tally.add("http.refusedAtOpen")
                continue
            head, _, body = response.partition(b"\r\n\r\n")
            got = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else None
            if got == 503 and self.descriptors_short():
                self.tally.add("http.refusedAtOpen")
            elif got == status and reason in body and response.count(b"HTTP/1.1 ") == 1 and closed:
                self.tally.add(f"http.{name}{status}")
            else:
                self.tally.error("http", f"{name}: expected {status} ({reason!r}) and closed; got "
                                         f"{'closed' if closed else 'open'} {response[:200]!r}")
        self.tally.add("http.runs")

    def descriptors_short(self):
        """While the sockets attack holds every descriptor, new sockets are closed at accept
        (or answered 503 from the reserve)."""
        with self.phase_lock:
            return self.active["sockets"] > 0

    def memory(self):
        """Finding 3: instances with large states piled up until limits.maxMemoryBytes.
        MEMORY_ADDRESSES addresses at once (each within its quota) join QUOTA new docs each
        and fill them with 60 KB values, round after round, until an action or a join is
        `overloaded` naming the memory limit (past 90 % of it); then each goes on for 3
        rounds (refused, or accepted where evictions brought memory back under), and a
        fresh address tries to create an instance. Then the attackers go, and the daemon must take
        actions again (recovery: under pressure its idle instances are evicted at once).
        Resident memory is sampled after every round, on top of the sampler's once a second."""
        run = {"run": self.run_number("memory"), "pressure": False, "recovered": None, "addresses": 0}
        self.memory_runs.append(run)
        value = "x" * MEMORY_VALUE_BYTES
        filled: list[tuple[RawClient, list[str]]] = []
        lock = threading.Lock()

        def fill(a):
            client = RawClient(self.port, source=f"127.0.2.{a + 1}", name=f"memory{a}").open(timeout=10)
            joined = []
            with lock:
                filled.append((client, joined))
                run["addresses"] += 1
            for first in range(0, QUOTA, MEMORY_JOIN_BATCH):
                if run["pressure"] or self.stop.is_set():
                    return
                refs = [f"j{n}" for n in range(first, first + MEMORY_JOIN_BATCH)]
                # new ids each run (a doc of an earlier run would come back whole, in a
                # snapshot as large as the queue of replies allowed to a reader)
                doc = f"doc/memory{run['run']}-{a}-"
                client.send_now(b"".join(client_frame({"type": "join", "reactor": doc + ref[1:], "ref": ref}) for ref in refs))
                for ref, reply in self.answers(client, refs, timeout=120).items():
                    outcome = self.instance_refusal("memory", reply)
                    if outcome == "created":
                        joined.append(doc + ref[1:])
                    elif outcome == "memory":
                        run["pressure"] = True
                        self.tally.add("memory.joinsRefused")
                    elif outcome != "wrong":
                        self.tally.add(f"memory.{outcome}")
                self.sample_memory(run)
            after = 0
            for k in range(MEMORY_VALUES + MEMORY_ROUNDS_AFTER):
                if self.stop.is_set() or (k >= MEMORY_VALUES and not run["pressure"]):
                    return
                if run["pressure"]:
                    after += 1
                    if after > MEMORY_ROUNDS_AFTER:
                        return
                self.memory_round(run, [(client, joined)], f"/k{k % MEMORY_VALUES}", value)

        try:
            fillers = [threading.Thread(target=self.guarded(fill, "memory"), args=(a,), name=f"memory{a}", daemon=True)
                       for a in range(MEMORY_ADDRESSES)]
            for filler in fillers:
                filler.start()
            for filler in fillers:
                filler.join()
            if run["pressure"]:
                # a fresh address may not create an instance either (unless memory is back under)
                creator = RawClient(self.port, source="127.0.0.58", name="memory-creator").open(timeout=10)
                try:
                    outcome = self.instance_refusal(
                        "memory", creator.request({"type": "join", "reactor": f"doc/memory-new{run['run']}", "ref": "c"}, timeout=30))
                    self.tally.add(f"memory.freshAddress.{outcome}")
                finally:
                    creator.close()
            else:
                self.tally.add("memory.runsWithoutPressure")
        finally:
            for client, _ in filled:
                client.close()
        run["rssAtEndMiB"] = mib(rss_bytes(self.pid))
        if run["pressure"]:
            self.tally.add("memory.pressureRuns")
            started = time.monotonic()
            if self.wait_accepting("memory", timeout=120):
                run["recovered"] = round(time.monotonic() - started, 1)
                run["rssRecoveredMiB"] = mib(rss_bytes(self.pid))
                self.tally.add("memory.recovered")
            else:
                run["recovered"] = False
                self.tally.error("memory", "actions still refused 120 s after the memory attack stopped")
        self.tally.add("memory.runs")

    def memory_round(self, run, docs, path, value):
        """One `set` of `value` at `path` in every doc of `docs` ([(client, [doc…])]), a few
        at a time per client (each comes back to it as a patch: more at once and it would be
        the slow reader closed with 1013), answers awaited; notes the memory refusals and
        samples RSS."""
        for client, joined in docs:
            for first in range(0, len(joined), MEMORY_WINDOW):
                refs = [f"{path}-{n}" for n in range(first, min(first + MEMORY_WINDOW, len(joined)))]
                client.send_now(b"".join(client_frame(act(joined[int(ref.rsplit("-", 1)[1])], ref,
                                                          {"type": "set", "path": path, "value": value})) for ref in refs))
                for reply in self.answers(client, refs, timeout=120).values():
                    outcome = self.expect("memory", reply)
                    if outcome == "memory":
                        run["pressure"] = True
                    elif outcome == "ok":
                        self.tally.add("memory.acked")
            self.sample_memory(run)

    def sample_memory(self, run):
        rss = rss_bytes(self.pid)
        self.memory_samples.append(rss)
        run["peakMiB"] = max(run.get("peakMiB", 0), mib(rss))

    def wait_accepting(self, name, timeout):
        """Until an action on PROBE_DOC is acked (memory back under 90 % of the budget):
        asks every 0.25 s, up to `timeout`; returns whether it was."""
        probe = RawClient(self.port, source="127.0.0.58", name=f"{name}-probe").open(timeout=10)
        try:
            probe.request({"type": "join", "reactor": PROBE_DOC, "ref": "j"}, timeout=30)
            deadline = time.monotonic() + timeout
            n = 0
            while time.monotonic() < deadline:
                n += 1
                reply = probe.request(act(PROBE_DOC, f"p{n}", {"type": "set", "path": "/probe", "value": n}), timeout=30)
                if reply.get("type") == "ack":
                    return True
                if not is_memory_refusal(reply):
                    self.tally.error(name, f"the probe's action answered {reply}")
                    return False
                time.sleep(0.25)
            return False
        finally:
            probe.close()

    def answers(self, client, refs, timeout=60):
        """The replies carrying `refs` (in any order), by ref in the order of `refs`."""
        waiting, got = set(refs), {}
        while waiting:
            reply = client.read_until(lambda m: m.get("ref") in waiting, timeout=timeout)[-1]
            waiting.discard(reply["ref"])
            got[reply["ref"]] = reply
        return {ref: got[ref] for ref in refs}

    # -- the well-behaved clients ------------------------------------------------------

    async def well_behaved(self, result):
        url = f"ws://127.0.0.1:{self.port}/ws"
        observer = SyncClient(url, "observer")
        await observer.connect()
        await observer.join(DOC)
        await observer.join(TODO)
        clients = [SyncClient(url, f"good{i}") for i in range(4)]
        for client in clients:
            await client.connect()
            await client.join(DOC)
            await client.join(TODO)
        drivers = [WorkloadDriver(c, i, DOC, TODO, seed=9000 + i, actions=50, window=8) for i, c in enumerate(clients)]
        for driver in drivers:
            await driver.setup()
        stats = collections.Counter()

        async def reconnect(client, driver):
            if client.connected:
                await client.disconnect(abort=random.random() < 0.5)
            for attempt in range(120):
                try:
                    await client.connect()
                    break
                except Exception:  # refused while the descriptors are full: retry
                    stats["connectRetries"] += 1
                    await asyncio.sleep(0.5)
            for address in (DOC, TODO):
                reply = await client.rejoin(address, timeout=60)
                stats[reply["type"]] += 1
            driver.reset_models()

        def hook_for(driver):
            client, rng = driver.client, random.Random(driver.index)

            async def hook(step):
                if not client.connected:
                    stats["closedByServer"] += 1
                    await reconnect(client, driver)
                elif rng.random() < 0.01:
                    stats["reconnects"] += 1
                    await reconnect(client, driver)
                await asyncio.sleep(0.02)
            return hook

        async def drive(driver):
            while not self.stop.is_set():
                driver.actions = 50
                try:
                    await driver.run(hook_for(driver))
                except Exception as error:  # a chunk's replies not all in time: counted
                    self.tally.error("wellBehaved", error)
                stats["chunks"] += 1
            if not driver.client.connected:
                await reconnect(driver.client, driver)

        await asyncio.gather(*(drive(d) for d in drivers))
        # the memory attack may have left the daemon refusing actions a little longer
        try:
            if not await asyncio.to_thread(self.wait_accepting, "wellBehaved", 120):
                self.tally.error("wellBehaved", "actions still refused (memory) 120 s after the load stopped")
        except Exception as error:  # counted; the settle below says whether it matters
            self.tally.error("wellBehaved", error)
        # the barrier's marker on the todo list is an `add`; a 600 s workload may fill the
        # list to reactors.todo.maxItems, where an `add` is refused (as the contract says):
        # then it is a `toggle` of an item the observer holds
        marker = await self.todo_marker(observer)
        fresh = await settle(clients + [observer], [DOC, TODO], url, via=observer, futures={TODO: marker}, timeout=180)
        converged = []
        for client in clients + [observer]:
            for address in (DOC, TODO):
                epoch, version, state = fresh[address]
                copy = client.copy(address)
                converged.append((copy.epoch, copy.version) == (epoch, version) and canonical(copy.state) == canonical(state))
        result.update({
            "clients": len(clients) + 1, "converged": all(converged), "copiesChecked": len(converged),
            "actionsSent": sum(len(d.sent) for d in drivers), "finalVersions": {a: fresh[a][1] for a in (DOC, TODO)},
            "harnessFailures": [f for c in clients + [observer] for f in c.failures][:10],
            **{k: v for k, v in stats.items()},
        })
        for client in clients + [observer]:
            await client.close()

    async def todo_marker(self, observer):
        """An action on TODO that changes its state, acked: `add`, or past
        reactors.todo.maxItems a `toggle` (retried: the observer's copy may lag a removal);
        as a resolved future, for `settle`."""
        reply = {}
        for attempt in range(20):
            items = observer.copy(TODO).state.get("items", [])
            if len(items) < TODO_MAX_ITEMS:
                action = {"type": "add", "title": f"_settled-{attempt}"}
            else:
                action = {"type": "toggle", "id": items[attempt % len(items)]["id"]}
            reply = await asyncio.wait_for(observer.act(TODO, action), 60)
            if reply.get("type") == "ack":
                break
            self.tally.add(f"wellBehaved.marker.{action['type']}Refused")
            await asyncio.sleep(0.5)
        future = asyncio.get_running_loop().create_future()
        future.set_result(reply)
        return future

    # -- the run -----------------------------------------------------------------------

    def run(self):
        self.sampling_done = threading.Event()
        # warm-up: the instances the attacks use exist, held by one connection
        holder = RawClient(self.port, name="holder").open()
        for n, reactor in enumerate(CROWD_DOCS + WRITER_DOCS + HISTORY_DOCS + CHURN_REACTORS + [DOC, TODO, "todo/titles"]
                                    + [DEEP_DOC, ARRAY_DOC, JOIN_DOC, PROBE_DOC]):
            holder.request({"type": "join", "reactor": reactor, "ref": n})
        # what every accepted join of the join flood pulls
        holder.request(act(JOIN_DOC, "blob", {"type": "set", "path": "/blob", "value": "j" * 8000}))
        time.sleep(1)
        baseline = {"rss": rss_bytes(self.pid), "fds": open_descriptors(self.pid), "load1": os.getloadavg()[0],
                    **self.gauges()}

        def keep_holder():   # reads (and answers keepalive pings) so that it stays
            while not self.stop.wait(0.5):
                holder.pump()
        threading.Thread(target=keep_holder, name="holder", daemon=True).start()
        started = time.monotonic()
        threads = [threading.Thread(target=self.sampler, name="sampler", daemon=True)]
        for target in (self.churn, self.slow_readers, self.titles):
            if self.wanted(target.__name__):
                threads.append(threading.Thread(target=self.guarded(target), name=target.__name__, daemon=True))
        for thread in threads:
            thread.start()
        scale = self.scale
        # (period, first run, attack): periods differ so that the attacks overlap in ever
        # other combinations; the instances attack's period leaves time for its instances to
        # be evicted (60 s idle, a pass every 30 s) so that the table is not always full
        schedule = [
            (45, 2, self.crowd), (60, 10, self.writers), (40, 5, self.replies), (50, 15, self.history),
            (70, 25, self.sockets), (150, 60, self.instances), (40, 3, self.quota), (30, 4, self.deep),
            (35, 8, self.arrays), (25, 12, self.joins), (30, 6, self.http), (100, 10, self.memory),
        ]
        attacks = [self.every(period * scale, first * scale, attack, attack.__name__)
                   for period, first, attack in schedule if self.wanted(attack.__name__)]
        good = {}
        good_thread = threading.Thread(target=lambda: asyncio.run(self.well_behaved(good)), name="good", daemon=True)
        good_thread.start()

        self.stop.wait(self.duration)
        self.stop.set()
        for thread in attacks + threads[1:]:
            thread.join(180)
        good_thread.join(300)
        stopped_at = time.monotonic()
        holder.close()
        # cool-down: until every instance is evicted (60 s idle, a pass every 30 s) and the
        # CPU is quiet, or COOL_DOWN_LIMIT
        cool_started = time.monotonic()
        instances = None
        while time.monotonic() - cool_started < COOL_DOWN_LIMIT:
            time.sleep(2)
            instances = self.gauges().get("instances")
            recent = self.samples[-5:]
            if instances == 0 and len(recent) == 5 and sum(s["cpu"] for s in recent) / 5 < QUIET_SHARE:
                break
        time.sleep(3)   # the memory trim after the last eviction pass
        cooled = time.monotonic() - cool_started
        self.sampling_done.set()
        threads[0].join(5)
        end = {"rss": rss_bytes(self.pid), "fds": open_descriptors(self.pid), "load1": os.getloadavg()[0],
               "instances": instances, "coolDownSeconds": round(cooled, 1)}
        quiet_cpu = sum(s["cpu"] for s in self.samples[-5:]) / max(len(self.samples[-5:]), 1)
        totals = self.metrics()

        signalled = time.monotonic()
        self.daemon.process.send_signal(signal.SIGTERM)
        try:
            status = self.daemon.process.wait(60)
        except Exception:
            status = None
            self.daemon.kill()
        shutdown = time.monotonic() - signalled
        self.daemon.log.close()
        return self.report(baseline, end, quiet_cpu, good, status, shutdown, stopped_at - started, totals)

    def guarded(self, target, name=None):
        """`target` in a thread: what it raises is counted (`name`: a part of an attack,
        whose connections the sockets attack may refuse at accept, as `every` counts them)."""
        def run(*args):
            try:
                target(*args)
            except Exception as error:
                if name and isinstance(error, (HandshakeError, ConnectionResetError)):
                    self.tally.add(f"{name}.refusedAtOpen")
                else:
                    self.tally.error(name or target.__name__, error)
                    if name is None:
                        traceback.print_exc()
        return run

    # -- the report --------------------------------------------------------------------

    def report(self, baseline, end, quiet_cpu, good, status, shutdown, ran, totals):
        peak_rss = max((s["rss"] for s in self.samples), default=0)
        peak_fds = max((s["fds"] for s in self.samples), default=0)
        peak_connections = max((s.get("connections", 0) for s in self.samples), default=0)
        loads = [s["load1"] for s in self.samples]

        def by_label(name, label):
            found = {}
            for key, value in totals.items():
                if key.startswith(name + "{"):
                    labels = dict(part.split("=", 1) for part in key[len(name) + 1:-1].split(","))
                    tag = labels.get(label, "").strip('"')
                    found[tag] = found.get(tag, 0) + int(value)
            return dict(sorted(found.items()))
        daemon_counts = {
            "connectionsOpened": int(totals.get("reactorhub_connections_opened_total", 0)),
            "connectionsClosedByCode": by_label("reactorhub_connections_closed_total", "code"),
            "actionsByResult": by_label("reactorhub_actions_total", "result"),
            "errorRepliesByCode": by_label("reactorhub_errors_total", "code"),
            "slowConsumers": by_label("reactorhub_slow_consumer_total", "action"),
        }
        tally = self.tally.counts

        def clean(*names):
            return not any(tally.get(f"{name}.errors") for name in names)

        # every RSS sample: the sampler's (once a second) and the memory attack's (each round)
        bound = MEMORY_BUDGET + self.idle_rss
        rss_values = [s["rss"] for s in self.samples] + self.memory_samples
        over_bound = [v for v in rss_values if v > bound]
        pressure_runs = [r for r in self.memory_runs if r["pressure"]]
        peak_instances = max((s.get("instances", 0) for s in self.samples), default=0)
        # (name, the attack it needs or None, passed): with --only, the others are skipped
        check_list = [
            ("wellBehavedConverged", None, bool(good.get("converged"))),
            ("rssPeakUnderBound", None, peak_rss < RSS_PEAK_BOUND),
            ("rssWithinMemoryBudget", None, not over_bound),
            ("rssBackNearBaseline", None, end["rss"] <= baseline["rss"] + RSS_END_SLACK),
            ("descriptorsBackToBaseline", None, end["fds"] <= baseline["fds"] + FDS_END_SLACK),
            ("cpuNearIdleAtTheEnd", None, quiet_cpu < QUIET_SHARE),
            ("sigtermExit0", None, status == 0),
            ("refusedReplyFloodWith1013", "replies", tally.get("replies.closed1013", 0) > 0
             and all(k == "replies.closed1013" for k in tally if k.startswith("replies.closed"))),
            ("instancesCapped", "instances", tally.get("instances.refused", 0) > 0 and clean("instances")),
            ("instancesNeverPastMax", None, peak_instances <= self.max_instances),
            ("connectsClosed", "sockets", tally.get("sockets.connectClosed", 0) > 0
             and not any(tally.get(k) for k in ("sockets.connectAnswered", "sockets.connectOpen"))),
            ("healthzWhileDescriptorsHeld", "sockets", tally.get("sockets.healthzWhileFull", 0) > 0 and clean("sockets.healthz")),
            ("memoryPressureRefused", "memory", tally.get("memory.memoryRefused", 0) + tally.get("memory.joinsRefused", 0) > 0),
            ("memoryRecovered", "memory", bool(pressure_runs) and all(r["recovered"] is not False for r in pressure_runs)
             and clean("memory")),
            ("deepDocsRefusedAtMaxDepth", "deep", tally.get("deep.refused", 0) > 0 and tally.get("deep.accepted", 0) > 0
             and clean("deep")),
            ("bigArraysRefusedAtBounds", "arrays", tally.get("arrays.elementsRefused", 0) > 0
             and tally.get("arrays.operationsRefused", 0) > 0 and clean("arrays")),
            ("joinFloodRateLimited", "joins", tally.get("joins.rateLimited", 0) > 0
             and tally.get("joins.bystanderJoined", 0) == tally.get("joins.runs", -1) and clean("joins")),
            ("instanceQuotaEnforced", "quota", tally.get("quota.refused", 0) > 0 and clean("quota")),
            ("malformedHttpRefused", "http", all(tally.get(f"http.{name}{status}", 0) > 0 for name, _, status, _ in HTTP_CASES)
             and clean("http")),
        ]
        checks = {name: (passed if needs is None or self.wanted(needs) else None) for name, needs, passed in check_list}
        memory_budget = {
            "maxMemoryBytesMiB": mib(MEMORY_BUDGET), "idleRssMiB": mib(self.idle_rss), "boundMiB": mib(bound),
            "peakRssMiB": mib(max(rss_values, default=0)), "samples": len(rss_values),
            "memoryAttackSamples": len(self.memory_samples), "samplesOverBound": len(over_bound),
            "runs": self.memory_runs,
        }
        minutes = []
        span = 10 if self.short else 60
        for start in range(0, int(self.samples[-1]["t"]) + 1 if self.samples else 0, span):
            window = [s for s in self.samples if start <= s["t"] < start + span]
            if window:
                minutes.append({
                    "from": start, "rssMinMiB": mib(min(s["rss"] for s in window)), "rssMaxMiB": mib(max(s["rss"] for s in window)),
                    "fdsMax": max(s["fds"] for s in window), "connectionsMax": max(s.get("connections", 0) for s in window),
                    "cpuMean": round(sum(s["cpu"] for s in window) / len(window), 2),
                    "load1Mean": round(sum(s["load1"] for s in window) / len(window), 1),
                    "active": sorted({a for s in window for a in s["active"]}),
                })
        report = {
            "date": time.strftime("%Y-%m-%d %H:%M %Z"), "cores": os.cpu_count(),
            "loadSeconds": self.duration, "untilStoppedSeconds": round(ran, 1), "scale": self.scale, "openFiles": OPEN_FILES,
            "baseline": {"rssMiB": mib(baseline["rss"]), "fds": baseline["fds"], "connections": baseline.get("connections"),
                         "instances": baseline.get("instances")},
            "peak": {"rssMiB": mib(peak_rss), "fds": peak_fds, "connections": peak_connections},
            "end": {"rssMiB": mib(end["rss"]), "fds": end["fds"], "cpu": round(quiet_cpu, 3), "instances": end["instances"],
                    "coolDownSeconds": end["coolDownSeconds"]},
            "loadAverage": {"atStart": round(baseline["load1"], 2), "mean": round(sum(loads) / max(len(loads), 1), 2),
                            "max": round(max(loads, default=0), 2), "atEnd": round(end["load1"], 2)},
            "daemonCounted": daemon_counts,
            "shutdown": {"status": status, "seconds": round(shutdown, 2)},
            "wellBehaved": good, "tally": dict(sorted(self.tally.counts.items())), "errors": self.tally.errors,
            "memoryBudget": memory_budget, "maxInstances": self.max_instances, "peakInstances": peak_instances,
            "only": sorted(self.only) if self.only else None,
            "checks": checks, "windows": minutes, "binary": str(os.environ.get("REACTORHUB_BINARY", "")),
            "log": str(self.daemon.log_path),
        }
        OUTPUT.mkdir(parents=True, exist_ok=True)
        (OUTPUT / "soak-report.json").write_text(json.dumps(report, indent=2) + "\n")
        return report


def print_table(report):
    print(f"\nsoak ({report['date']}, {report['cores']} cores): {report['loadSeconds']:.0f} s of load (all stopped at "
          f"{report['untilStoppedSeconds']} s), daemon under an open-file limit of {report['openFiles']}")
    print(f"{'from s':>7} {'RSS MiB min-max':>16} {'fds max':>8} {'conns max':>10} {'CPU (cores)':>12} {'load1':>6}  attacks running")
    for row in report["windows"]:
        print(f"{row['from']:>7} {row['rssMinMiB']:>7}-{row['rssMaxMiB']:<8} {row['fdsMax']:>8} {row['connectionsMax']:>10} "
              f"{row['cpuMean']:>12} {row['load1Mean']:>6}  {', '.join(row['active'])}")
    b, p, e = report["baseline"], report["peak"], report["end"]
    print(f"\n{'':>12} {'RSS MiB':>8} {'fds':>6} {'conns':>6}")
    print(f"{'baseline':>12} {b['rssMiB']:>8} {b['fds']:>6} {b['connections']!s:>6}   instances {b['instances']}")
    print(f"{'peak':>12} {p['rssMiB']:>8} {p['fds']:>6} {p['connections']!s:>6}")
    print(f"{'end':>12} {e['rssMiB']:>8} {e['fds']:>6} {'':>6}   instances {e['instances']} after a cool-down of "
          f"{e['coolDownSeconds']} s; CPU at the end {e['cpu']} of a core")
    load = report["loadAverage"]
    print(f"load average (1 min): {load['atStart']} at the start, mean {load['mean']}, max {load['max']}, {load['atEnd']} at the end")
    print(f"shutdown: status {report['shutdown']['status']} in {report['shutdown']['seconds']} s")
    good = report["wellBehaved"]
    print(f"well-behaved: {good.get('clients')} clients, {good.get('actionsSent')} actions, converged {good.get('converged')}, "
          f"reconnects {good.get('reconnects', 0)}, resumed {good.get('resumed', 0)}, snapshot {good.get('snapshot', 0)}, "
          f"closed by the server {good.get('closedByServer', 0)}")
    counted = report["daemonCounted"]
    print(f"daemon: {counted['connectionsOpened']} connections opened, closed by code {counted['connectionsClosedByCode']}; "
          f"actions {counted['actionsByResult']}; error replies {counted['errorRepliesByCode']}; "
          f"slow consumers {counted['slowConsumers']}")
    budget = report["memoryBudget"]
    pressured = [r for r in budget["runs"] if r["pressure"]]
    recovered = [r["recovered"] for r in pressured if r["recovered"] is not False]
    print(f"memory budget: limits.maxMemoryBytes {budget['maxMemoryBytesMiB']} MiB + the idle process's "
          f"{budget['idleRssMiB']} MiB = {budget['boundMiB']} MiB; RSS peak {budget['peakRssMiB']} MiB over "
          f"{budget['samples']} samples ({budget['memoryAttackSamples']} of them the memory attack's), "
          f"{budget['samplesOverBound']} above the bound; 90 % reached in {len(pressured)} of {len(budget['runs'])} memory "
          f"runs (peaks {', '.join(str(r.get('peakMiB', 'none: refused at open')) for r in budget['runs'])} MiB; addresses "
          f"let in {', '.join(str(r['addresses']) for r in budget['runs'])} of {MEMORY_ADDRESSES}), recovered in {len(recovered)}"
          + (f" after {min(recovered)}-{max(recovered)} s" if recovered else ""))
    print(f"instances: at most {report['peakInstances']} in memory (limits.maxInstances {report['maxInstances']})")
    groups = collections.defaultdict(list)
    for key, value in report["tally"].items():
        name, _, what = key.partition(".")
        groups[name].append(f"{what} {value}")
    print("attacks (what the soak's side counted):")
    for name, values in groups.items():
        print(f"  {name:>12}: {', '.join(values)}")
    for name, ok in report["checks"].items():
        print(f"  {'skip' if ok is None else 'ok  ' if ok else 'FAIL'} {name}")
    if report["errors"]:
        print(f"soak-side errors ({len(report['errors'])} kept): " + "; ".join(report["errors"][:8]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=None,
                        help=f"seconds of load (default: $SOAK_SECONDS, else {DEFAULT_SECONDS})")
    parser.add_argument("--short", action="store_true", help="a one-minute smoke run (--duration 60)")
    parser.add_argument("--only", default=None,
                        help="debugging: run only these attacks and background loads (comma-separated names, e.g. "
                             "memory,deep; the well-behaved clients always run); the other attacks' checks are skipped")
    args = parser.parse_args()
    duration = args.duration or (60 if args.short else float(os.environ.get("SOAK_SECONDS") or DEFAULT_SECONDS))
    soak = Soak(duration, only=set(args.only.split(",")) if args.only else None)
    try:
        report = soak.run()
    finally:
        soak.stop.set()
        if soak.daemon.process.poll() is None:
            soak.daemon.kill()
        shutil.rmtree(soak.workdir, ignore_errors=True)   # the store: a few hundred MB of memory-attack docs
    print_table(report)
    sys.exit(0 if all(ok is not False for ok in report["checks"].values()) else 1)


if __name__ == "__main__":
    main()
