#!/usr/bin/env python3
"""Soak: a real daemon under connection churn, joins, actions, slow readers and every
attack of the issue "Bounded under attack" at once, for a while: `--duration SECONDS`, or
the environment's SOAK_SECONDS, default 600 (`--short`: 60). Run by `make soak`
(`make soak SOAK_SECONDS=120` for a short run), against the release build; not part of
`make test`. The attacks' periods shrink with the duration (down to a quarter of those
below at 150 s or less), so that a short run still sees each several times.

Well-behaved clients (Tests/e2e/sync_harness.py SyncClients with a random doc+todo
workload, reconnecting with `since` now and then) keep their own RFC 6902 copies. Beside
them, each in a thread of its own with its own period, so that they overlap:
  churn         connections opened, joined, acted on, closed, all the time
  slow readers  joined to busy docs, never reading (small receive buffers)
  instances     one connection joining new ids (finding 4: refused past limits.maxInstances)
  titles        64 KB one-"character" todo titles (finding 6)
  crowd         150 connections at 200 actions/s each on 3 docs (finding 2), on and off
  writers       10 connections as fast as their sockets take it (finding 2), on and off
  replies       a non-reader sending 60,000 invalid messages (finding 1: closed with 1013)
  history       60 KB values replaced on 2 docs (finding 3)
  sockets       CONNECTs, the 257th socket from an address, and holders filling every
                descriptor the daemon may use (finding 5; the daemon runs under an
                open-file limit of 2048)
Every second the daemon's resident memory, open descriptors and CPU (/proc) and the
machine's load average are sampled; every 5 s its /metrics (open connections, instances,
queued output). At the end: the attacks stop, every well-behaved copy must equal a fresh
snapshot, the daemon cools down until its idle instances are evicted (60 s idle, a pass
every 30 s) and its CPU is quiet, memory and descriptors must be back near where they
were after the warm-up, and SIGTERM must end it with status 0. The bounds are generous
(the machine is shared); nothing is timed. Prints a table with the actions, connections
and errors the daemon counted; writes test-output/soak-report.json (the daemon's log is
test-output/soak.log, fresh each run). Exit status 1 when a check fails.
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


class Soak:
    def __init__(self, duration):
        self.duration = duration
        # the attacks' periods and lengths, relative to a 10-minute run
        self.scale = min(1.0, max(0.25, duration / DEFAULT_SECONDS))
        self.short = self.scale < 0.5
        self.stop = threading.Event()
        self.tally = Tally()
        self.samples: list[dict] = []
        self.workdir = pathlib.Path(tempfile.mkdtemp(prefix="rh-soak-"))
        config = base_config(
            logLevel="info",
            # outboundQueueBytes 256 KiB: the reply flood reaches the 1013 bound (4x) within
            # seconds even on a loaded machine, before the keepalive (60 s) would drop it
            limits={"actionsPerSecond": 1_000_000, "actionBurst": 1_000_000, "maxInstances": 300 if self.short else 1000,
                    "outboundQueueBytes": 256 * 1024},
            shutdownGraceMs=2000,
            persistence={"kind": "sqlite", "path": str(self.workdir / "soak.sqlite"), "flushMs": 200},
            metrics={"enabled": True},
            reactors={"counter": {"delayMs": 50}, "weather": {"latencyMs": 50}},
        )
        (OUTPUT / "soak.log").unlink(missing_ok=True)   # this run's log only (the Daemon appends)
        self.daemon = Daemon(config, self.workdir, "soak", open_files=OPEN_FILES)
        self.pid = self.daemon.process.pid
        self.port = self.daemon.port
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
                reader = RawClient(self.port, rcvbuf=4096, source="127.0.0.34", keep_text=False).open(timeout=10)
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

    def instances(self):
        client, n = None, 0
        while not self.stop.is_set():
            try:
                if client is None:
                    client = RawClient(self.port, source="127.0.0.35").open(timeout=10)
                n += 1
                reply = client.request({"type": "join", "reactor": f"doc/new{n}", "ref": n}, timeout=30)
                if reply["type"] == "snapshot":
                    self.tally.add("instances.created")
                    client.request({"type": "leave", "reactor": f"doc/new{n}", "ref": f"l{n}"}, timeout=30)
                elif reply.get("code") == "overloaded" and "limits.maxInstances" in reply.get("message", ""):
                    self.tally.add("instances.refused")
                else:
                    self.tally.error("instances", reply)
            except (HandshakeError, ConnectionError, OSError, TimeoutError) as error:
                self.tally.error("instances", error)
                if client is not None:
                    client.close()
                client = None
                self.sleep(1)
            self.sleep(0.01)
        if client is not None:
            client.close()

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
        self.sleep(max(3, 8 * self.scale))
        for client in held + more:
            client.close()
        for sock in pending + pending_more:
            sock.close()

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
        fresh = await settle(clients + [observer], [DOC, TODO], url, via=observer, timeout=180)
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

    # -- the run -----------------------------------------------------------------------

    def run(self):
        self.sampling_done = threading.Event()
        # warm-up: the instances the attacks use exist, held by one connection
        holder = RawClient(self.port, name="holder").open()
        for n, reactor in enumerate(CROWD_DOCS + WRITER_DOCS + HISTORY_DOCS + CHURN_REACTORS + [DOC, TODO, "todo/titles"]):
            holder.request({"type": "join", "reactor": reactor, "ref": n})
        time.sleep(1)
        baseline = {"rss": rss_bytes(self.pid), "fds": open_descriptors(self.pid), "load1": os.getloadavg()[0],
                    **self.gauges()}

        def keep_holder():   # reads (and answers keepalive pings) so that it stays
            while not self.stop.wait(0.5):
                holder.pump()
        threading.Thread(target=keep_holder, name="holder", daemon=True).start()
        started = time.monotonic()
        threads = [threading.Thread(target=self.sampler, name="sampler", daemon=True)]
        for target in (self.churn, self.slow_readers, self.instances, self.titles):
            threads.append(threading.Thread(target=self.guarded(target), name=target.__name__, daemon=True))
        for thread in threads:
            thread.start()
        scale = self.scale
        attacks = [
            self.every(45 * scale, 2 * scale, self.crowd, "crowd"),
            self.every(60 * scale, 10 * scale, self.writers, "writers"),
            self.every(40 * scale, 5 * scale, self.replies, "replies"),
            self.every(50 * scale, 15 * scale, self.history, "history"),
            self.every(70 * scale, 25 * scale, self.sockets, "sockets"),
        ]
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

    def guarded(self, target):
        def run():
            try:
                target()
            except Exception as error:
                self.tally.error(target.__name__, error)
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
        checks = {
            "wellBehavedConverged": bool(good.get("converged")),
            "rssPeakUnderBound": peak_rss < RSS_PEAK_BOUND,
            "rssBackNearBaseline": end["rss"] <= baseline["rss"] + RSS_END_SLACK,
            "descriptorsBackToBaseline": end["fds"] <= baseline["fds"] + FDS_END_SLACK,
            "cpuNearIdleAtTheEnd": quiet_cpu < QUIET_SHARE,
            "sigtermExit0": status == 0,
            "refusedReplyFloodWith1013": self.tally.counts.get("replies.closed1013", 0) > 0
                                         and all(k == "replies.closed1013" for k in self.tally.counts if k.startswith("replies.closed")),
            "instancesCapped": self.tally.counts.get("instances.refused", 0) > 0,
            "connectsClosed": self.tally.counts.get("sockets.connectClosed", 0) > 0
                              and not any(self.tally.counts.get(k) for k in ("sockets.connectAnswered", "sockets.connectOpen")),
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
    print("attacks: " + ", ".join(f"{k} {v}" for k, v in report["tally"].items()))
    for name, ok in report["checks"].items():
        print(f"  {'ok  ' if ok else 'FAIL'} {name}")
    if report["errors"]:
        print(f"soak-side errors ({len(report['errors'])} kept): " + "; ".join(report["errors"][:8]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=None,
                        help=f"seconds of load (default: $SOAK_SECONDS, else {DEFAULT_SECONDS})")
    parser.add_argument("--short", action="store_true", help="a one-minute smoke run (--duration 60)")
    args = parser.parse_args()
    duration = args.duration or (60 if args.short else float(os.environ.get("SOAK_SECONDS") or DEFAULT_SECONDS))
    soak = Soak(duration)
    try:
        report = soak.run()
    finally:
        soak.stop.set()
        if soak.daemon.process.poll() is None:
            soak.daemon.kill()
    print_table(report)
    sys.exit(0 if all(report["checks"].values()) else 1)


if __name__ == "__main__":
    main()
