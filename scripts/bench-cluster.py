#!/usr/bin/env python3
"""The cluster benchmark (BENCHMARKS.md "Several nodes on Redis"): one redis-server of its
own on a free loopback port, a single daemon and then three clustered daemons (release
builds, bench/daemon.json plus a `cluster` section), measured in one sitting with the same
load generator (reactorhub-bench):

- latency at 500 actions/s with 100 subscribers: on the single daemon; spread over the
  three nodes (sender on the owner); spread, sender on a follower (actions forwarded);
- saturated fan-out with 100 subscribers: the single daemon; subscribers and sender on a
  follower node (every action forwarded, every update through Redis pub/sub);
- failover: ten times, the owner of an instance is killed (SIGKILL) under a writer on
  another node; the time from the kill to the ack of the first action sent after it.

And with Redis Sentinel (a master, its replica, a replica of that replica with priority 0,
three sentinels; three daemons following them, BENCHMARKS.md "Several nodes on Redis with
Sentinel"):

- latency at 500 actions/s with 100 subscribers spread over the nodes, sender on a
  follower, with `cluster.minReplicas` 0 and 1;
- Redis failover: ten times, the Redis master is killed (SIGKILL) under a writer on each
  node (minReplicas 1); the time from the kill to the ack of the first action sent after it
  on every node, and from the sentinels naming the new master to that ack. The killed server
  comes back as a replica before the next round.

Prints the figures and, unless --no-write, writes them into BENCHMARKS.md between the
"cluster-bench:begin" and "cluster-bench:end" markers (and "sentinel-bench:…"). Numbers,
never assertions.

    scripts/bench-cluster.py [--daemon PATH] [--bench PATH] [--quick] [--no-write] [--only cluster|sentinel]
"""
import argparse
import asyncio
import datetime
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))

from websockets.asyncio.client import connect as ws_connect  # noqa: E402

LEASE_MS = 2000
# The sentinels of the Sentinel part: down after 2 s without an answer (1 s made them fail
# over masters that were merely slow on a loaded machine), and a failover that may take 4 s.
DOWN_AFTER_MS = 2000
FAILOVER_TIMEOUT_S = 4


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Process:
    def __init__(self, args, log):
        self.log = open(log, "ab")
        self.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, cwd=ROOT)

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Daemon(Process):
    def __init__(self, binary, config, work, name):
        path = work / f"{name}.json"
        path.write_text(json.dumps(config))
        super().__init__([binary, "--config", str(path), "--port", "0"], work / f"{name}.log")
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening on http://"):
            raise RuntimeError(f"{name} did not start: {line!r}")
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.url = f"ws://127.0.0.1:{self.port}/ws"
        self.pid = self.process.pid


def base_config():
    return json.loads((ROOT / "bench" / "daemon.json").read_text())


def cluster_config(redis_port, node, prefix):
    config = base_config()
    config.pop("persistence", None)
    config["cluster"] = {"redis": f"127.0.0.1:{redis_port}", "nodeId": node, "leaseMs": LEASE_MS, "keyPrefix": prefix}
    return config


def bench(binary, *args):
    out = subprocess.run([binary, *args, "--quiet"], capture_output=True, text=True, timeout=600)
    line = next((l for l in out.stdout.splitlines() if l.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"reactorhub-bench {' '.join(args)} gave no result:\n{out.stdout}\n{out.stderr}")
    return json.loads(line[len("RESULT "):])


async def own(url, reactor):
    """Joins `reactor` through `url`, so that this node takes its lease (the first to need it)."""
    ws = await ws_connect(url, subprotocols=["reactorhub.v1"], proxy=None)
    await ws.recv()
    await ws.send(json.dumps({"type": "join", "reactor": reactor, "ref": 1}))
    await ws.recv()
    return ws


async def failover_once(urls, owner_index, reactor):
    """A writer on another node; kill the owner; time until the first action sent after the
    kill is acked. Returns seconds."""
    writer_url = urls[(owner_index + 1) % len(urls)]
    ws = await ws_connect(writer_url, subprotocols=["reactorhub.v1"], proxy=None)
    await ws.recv()
    await ws.send(json.dumps({"type": "join", "reactor": reactor, "ref": "j"}))
    while json.loads(await ws.recv()).get("ref") != "j":
        pass
    return ws


async def act(ws, reactor, ref, value, timeout=30):
    await ws.send(json.dumps({"type": "action", "reactor": reactor, "ref": ref, "id": f"f{ref}",
                              "action": {"type": "set", "path": "/n", "value": value}}))
    end = time.monotonic() + timeout
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), max(0.01, end - time.monotonic())))
        if message.get("ref") == ref:
            return message


def owner_of(daemons):
    import urllib.request
    for index, daemon in enumerate(daemons):
        if daemon is None:
            continue
        with urllib.request.urlopen(f"http://127.0.0.1:{daemon.port}/metrics", timeout=5) as response:
            for line in response.read().decode().splitlines():
                if line.startswith("reactorhub_cluster_owned_instances") and float(line.split()[-1]) >= 1:
                    return index
    return None


async def failovers(binary, redis_port, work, rounds):
    prefix = f"fo{os.getpid()}"
    daemons = [Daemon(binary, cluster_config(redis_port, f"f{i}", prefix), work, f"failover-n{i}") for i in range(3)]
    generation = 0
    times = []
    try:
        for round_ in range(rounds):
            reactor = f"doc/failover-{round_}"
            first = await own(daemons[0].url, reactor)
            await asyncio.sleep(0.3)
            owner = owner_of(daemons)
            writer = await failover_once([d.url for d in daemons], owner, reactor)
            ref = 0
            for _ in range(20):
                ref += 1
                assert (await act(writer, reactor, ref, ref))["type"] == "ack"
            await first.close()
            killed = time.monotonic()
            daemons[owner].stop(signal.SIGKILL)
            while True:
                ref += 1
                sent = time.monotonic()
                reply = await act(writer, reactor, ref, ref)
                if reply["type"] == "ack" and sent > killed:
                    times.append(time.monotonic() - killed)
                    break
                await asyncio.sleep(0.01)
            await writer.close()
            generation += 1
            daemons[owner] = Daemon(binary, cluster_config(redis_port, f"f{owner}g{generation}", prefix), work, f"failover-n{owner}g{generation}")
            print(f"failover {round_ + 1}: {times[-1]:.3f} s", file=sys.stderr)
    finally:
        for daemon in daemons:
            daemon.stop()
    return times


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--daemon", default=str(ROOT / ".build" / "release" / "reactorhub"))
    parser.add_argument("--bench", default=str(ROOT / ".build" / "release" / "reactorhub-bench"))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"))
    parser.add_argument("--only", choices=["cluster", "sentinel"])
    options = parser.parse_args()
    if options.only == "sentinel":
        return sentinel_main(options)
    warmup, lat_seconds, sat_seconds, windows, rounds = ("0.5", "2", "1", "16,128", 3) if options.quick else ("1", "8", "3", "8,32,128,512", 10)
    work = pathlib.Path(tempfile.mkdtemp(prefix="rh-bench-cluster-"))
    started = time.monotonic()
    redis_port = free_port()
    redis = Process([shutil.which("redis-server") or "redis-server", "--port", str(redis_port), "--bind", "127.0.0.1",
                     "--save", "", "--appendonly", "no", "--dir", str(work)], work / "redis.log")
    time.sleep(0.5)
    results = {}
    try:
        single = Daemon(options.daemon, base_config(), work, "single")
        results["lat-single"] = bench(options.bench, "fanout", "--url", single.url, "--server-pid", str(single.pid),
                                      "--subscribers", "100", "--rate", "500", "--warmup", warmup, "--duration", lat_seconds)
        single.stop()
        single = Daemon(options.daemon, base_config(), work, "single-sat")
        results["sat-single"] = bench(options.bench, "fanout", "--url", single.url, "--server-pid", str(single.pid),
                                      "--subscribers", "100", "--window", windows, "--warmup", warmup, "--duration", sat_seconds)
        single.stop()

        prefix = f"b{os.getpid()}"
        nodes = [Daemon(options.daemon, cluster_config(redis_port, f"b{i}", prefix), work, f"node{i}") for i in range(3)]
        urls = ",".join(n.url for n in nodes)

        for key, reactor, sender in (("lat-spread-owner", "doc/lat-owner", nodes[0].url), ("lat-spread-follower", "doc/lat-follower", nodes[1].url)):
            loop = asyncio.new_event_loop()
            holder = loop.run_until_complete(own(nodes[0].url, reactor))
            results[key] = bench(options.bench, "fanout", "--url", urls, "--sender-url", sender, "--reactor", reactor,
                                 "--server-pid", str(nodes[0].pid), "--subscribers", "100", "--rate", "500",
                                 "--warmup", warmup, "--duration", lat_seconds)
            loop.run_until_complete(holder.close())
            loop.close()
        sweep = []
        for window in windows.split(","):
            reactor = f"doc/sat-{window}"
            loop = asyncio.new_event_loop()
            holder = loop.run_until_complete(own(nodes[0].url, reactor))
            sweep.append(bench(options.bench, "fanout", "--url", nodes[1].url, "--reactor", reactor, "--server-pid", str(nodes[1].pid),
                               "--subscribers", "100", "--window", window, "--warmup", warmup, "--duration", sat_seconds))
            loop.run_until_complete(holder.close())
            loop.close()
        results["sat-follower"] = max(sweep, key=lambda r: (r["ordered"], r["updatesPerSecond"]))
        for node in nodes:
            node.stop()
        results["failover"] = asyncio.run(failovers(options.daemon, redis_port, work, rounds))
    finally:
        redis.stop(signal.SIGKILL)
    elapsed = time.monotonic() - started
    table = render(results, elapsed, options)
    print(table)
    write_block(options, "cluster", table)
    if options.only is None:
        sentinel_main(options)


def write_block(options, name, table):
    """Puts `table` between the markers `name`-bench:begin and :end of BENCHMARKS.md."""
    if options.no_write:
        return
    path = pathlib.Path(options.output)
    text = path.read_text()
    begin, end = f"<!-- {name}-bench:begin", f"<!-- {name}-bench:end -->"
    block = f"{begin} (written by scripts/bench-cluster.py; edit outside these markers) -->\n{table}\n{end}"
    if begin in text:
        text = re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    path.write_text(text)


def sentinel_config(topology, node, prefix, min_replicas):
    config = base_config()
    config.pop("persistence", None)
    config["cluster"] = {"sentinels": topology.addresses, "masterName": "mymaster", "nodeId": node, "leaseMs": LEASE_MS,
                         "keyPrefix": prefix, "minReplicas": min_replicas}
    return config


class Prober:
    """One node's writer: an action with an id every 20 ms, never waiting for the replies."""

    def __init__(self, url, reactor, name):
        self.url, self.reactor, self.name = url, reactor, name
        self.sent = {}     # ref -> when
        self.acked = {}    # ref -> when

    async def run(self, stop):
        ws = await ws_connect(self.url, subprotocols=["reactorhub.v1"], proxy=None)
        await ws.recv()
        await ws.send(json.dumps({"type": "join", "reactor": self.reactor, "ref": "j"}))

        async def read():
            async for raw in ws:
                message = json.loads(raw)
                if message.get("type") == "ack" and message.get("ref") in self.sent:
                    self.acked.setdefault(message["ref"], time.monotonic())
        reader = asyncio.create_task(read())
        count = 0
        while not stop.is_set():
            count += 1
            ref = f"{self.name}-{count}"
            self.sent[ref] = time.monotonic()
            await ws.send(json.dumps({"type": "action", "reactor": self.reactor, "ref": ref, "id": ref,
                                      "action": {"type": "set", "path": f"/{self.name}", "value": count}}))
            await asyncio.sleep(0.02)
        reader.cancel()
        await ws.close()

    def first_ack_after(self, moment):
        acks = [self.acked[ref] for ref, sent in self.sent.items() if sent >= moment and ref in self.acked]
        return min(acks) if acks else None


async def redis_failovers(topology, urls, rounds):
    from sentinel_support import SwitchWatcher
    results = []
    for round_ in range(rounds):
        reactor = f"doc/redis-failover-{round_}"
        watcher = await SwitchWatcher([s.port for s in topology.sentinels]).start()
        probers = [Prober(url, reactor, f"p{i}") for i, url in enumerate(urls)]
        stop = asyncio.Event()
        tasks = [asyncio.create_task(p.run(stop)) for p in probers]
        while sum(len(p.acked) for p in probers) < 30:
            await asyncio.sleep(0.02)
        old = topology.named()
        server = topology.server(old)
        killed = time.monotonic()
        server.process.kill()
        server.process.wait()
        named, new = await watcher.wait_named(old, timeout=120)
        while any(p.first_ack_after(killed) is None for p in probers):
            await asyncio.sleep(0.01)
        stop.set()
        await asyncio.gather(*tasks)
        await watcher.close()
        last = max(p.first_ack_after(killed) for p in probers)
        results.append({"kill": last - killed, "named": named - killed, "after_naming": last - named})
        print(f"redis failover {round_ + 1}: sentinels named {new} {named - killed:.2f} s after the kill, "
              f"every node acked again {last - named:.2f} s later ({last - killed:.2f} s after the kill)", file=sys.stderr)
        # The killed server comes back as a replica, ready to be promoted in a later round, and
        # the next kill waits until the sentinels may fail over again (2 × failover-timeout).
        server.start(same_port=True)
        while not (topology.promotable(server) and topology.agreed() == new) or time.monotonic() - killed < 2 * FAILOVER_TIMEOUT_S + 1:
            await asyncio.sleep(0.1)
    return results


def sentinel_main(options):
    from sentinel_support import Topology
    warmup, lat_seconds, rounds = ("0.5", "2", 3) if options.quick else ("1", "8", 10)
    work = pathlib.Path(tempfile.mkdtemp(prefix="rh-bench-sentinel-"))
    started = time.monotonic()
    topology = Topology("bench-sentinel", failover_timeout_ms=int(FAILOVER_TIMEOUT_S * 1000), down_after_ms=DOWN_AFTER_MS)
    results = {}
    try:
        # The same generator, in the same sitting, on one redis-server without replicas or
        # sentinels (`cluster.redis`): what following the sentinels and replicating cost.
        plain_port = free_port()
        plain = Process([shutil.which("redis-server") or "redis-server", "--port", str(plain_port), "--bind", "127.0.0.1",
                         "--save", "", "--appendonly", "no", "--dir", str(work)], work / "plain-redis.log")
        time.sleep(0.5)
        nodes = [Daemon(options.daemon, cluster_config(plain_port, f"p{i}", f"plain{os.getpid()}"), work, f"plain-n{i}") for i in range(3)]
        results["lat-plain"] = follower_latency(options, nodes, "doc/lat-plain", warmup, lat_seconds)
        for node in nodes:
            node.stop()
        plain.stop(signal.SIGKILL)
        for min_replicas in (0, 1):
            prefix = f"s{min_replicas}x{os.getpid()}"
            nodes = [Daemon(options.daemon, sentinel_config(topology, f"m{min_replicas}n{i}", prefix, min_replicas), work,
                            f"sentinel-mr{min_replicas}-n{i}") for i in range(3)]
            results[f"lat-mr{min_replicas}"] = follower_latency(options, nodes, f"doc/lat-mr{min_replicas}", warmup, lat_seconds)
            if min_replicas == 1:
                results["failovers"] = asyncio.run(redis_failovers(topology, [n.url for n in nodes], rounds))
            for node in nodes:
                node.stop()
    finally:
        topology.stop()
    elapsed = time.monotonic() - started
    table = render_sentinel(results, elapsed, options)
    print(table)
    write_block(options, "sentinel", table)


def follower_latency(options, nodes, reactor, warmup, seconds):
    """500 actions/s from a follower, 100 subscribers spread over the nodes; node 0 owns."""
    loop = asyncio.new_event_loop()
    holder = loop.run_until_complete(own(nodes[0].url, reactor))
    result = bench(options.bench, "fanout", "--url", ",".join(n.url for n in nodes), "--sender-url", nodes[1].url, "--reactor", reactor,
                   "--server-pid", str(nodes[0].pid), "--subscribers", "100", "--rate", "500", "--warmup", warmup, "--duration", seconds)
    loop.run_until_complete(holder.close())
    loop.close()
    return result


def render_sentinel(results, elapsed, options):
    def listed(key):
        return ", ".join(f"{r[key]:.2f}" for r in results["failovers"])

    kills = sorted(r["kill"] for r in results["failovers"])
    after = sorted(r["after_naming"] for r in results["failovers"])
    named = sorted(r["named"] for r in results["failovers"])
    return "\n".join([
        "## Several nodes on Redis with Sentinel",
        "",
        f"- Date: {datetime.datetime.now():%Y-%m-%d %H:%M}, `scripts/bench-cluster.py{' --quick' if options.quick else ''}` "
        f"(its Sentinel part) took {elapsed:.0f} s, on this machine ({os.cpu_count()} CPUs); redis-server and redis-sentinel "
        f"{redis_version()}: a master, its replica, a replica of that replica (`replica-priority 0`) and three sentinels "
        f"(`down-after-milliseconds` {DOWN_AFTER_MS}, `failover-timeout` {FAILOVER_TIMEOUT_S * 1000}), three daemons following them (release builds, "
        f"`bench/daemon.json`, `leaseMs` {LEASE_MS}), all on 127.0.0.1. Load average at the end: "
        f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())}.",
        "",
        *latency_table("Latency at 500 actions/s × 100 subscribers, 3 nodes, sender on a follower (send → last subscriber, ms)", [
            ("`cluster.redis`: one redis-server, no replica, no sentinel (for comparison)", results["lat-plain"]),
            ("Sentinel, minReplicas 0 (acked once the master has it)", results["lat-mr0"]),
            ("Sentinel, minReplicas 1 (acked once `WAIT 1` confirms it)", results["lat-mr1"]),
        ]),
        "",
        f"### Redis master killed (SIGKILL) {len(kills)} times, minReplicas 1, a writer on every node",
        "",
        "From the kill to the ack of the first action sent after it, on the last of the three nodes (the sentinels' "
        "detection, `down-after-milliseconds`, is most of it); and from the moment a majority of the sentinels named "
        "the new master (their second `+switch-master`) to that ack (the contract: within 2 s).",
        "",
        f"- kill → every node acks again: median **{statistics.median(kills):.2f} s**, worst **{kills[-1]:.2f} s** "
        f"(all: {listed('kill')})",
        f"- sentinels name the new master → every node acks again: median **{statistics.median(after):.2f} s**, "
        f"worst **{after[-1]:.2f} s** (all: {listed('after_naming')})",
        f"- kill → the sentinels name the new master: median {statistics.median(named):.2f} s, worst {named[-1]:.2f} s",
    ])


def ms(micros):
    return f"{micros / 1000:.2f}"


def latency_table(title, rows):
    """The lines of a latency table headed `title`: one row per (label, result)."""
    return [f"### {title}", "", "| setup | updates/s | last subscriber p50 / p99 / max | in order |", "|---|---|---|---|",
            *(lat_row(label, result) for label, result in rows)]


def lat_row(label, r):
    """A row of a latency table: updates/s, last subscriber p50 / p99 / max, order."""
    last = r["last"]
    return f"| {label} | {r['updatesPerSecond']:,.0f} | {ms(last['p50'])} / **{ms(last['p99'])}** / {ms(last['max'])} | {'yes' if r['ordered'] else 'NO'} |"


def render(results, elapsed, options):
    def sat_row(label, r):
        window = r.get("window", "-")
        return f"| {label} | {window} | {r['actionsPerSecond']:,.0f} | **{r['updatesPerSecond']:,.0f}** | {ms(r['last']['p50'])} / {ms(r['last']['p99'])} | {'yes' if r['ordered'] else 'NO'} |"

    times = sorted(results["failover"])
    single_p99 = results["lat-single"]["last"]["p99"]
    single_sat = results["sat-single"]["updatesPerSecond"]
    lines = [
        "## Several nodes on Redis",
        "",
        f"- Date: {datetime.datetime.now():%Y-%m-%d %H:%M}, `scripts/bench-cluster.py{' --quick' if options.quick else ''}` took {elapsed:.0f} s, "
        f"on this machine ({os.cpu_count()} CPUs), one redis-server {redis_version()} and the daemons on 127.0.0.1; release builds; "
        f"`bench/daemon.json`, plus `cluster` with `leaseMs` {LEASE_MS} for the clustered ones. "
        f"Load average at the end: {' / '.join(f'{x:.1f}' for x in os.getloadavg())} (1 / 5 / 15 min; other work on the machine "
        "shows in every figure, the single daemon's included).",
        "- Same load generator as above (`reactorhub-bench fanout`): `--url` lists the three nodes (subscriber i on node i mod 3), "
        "`--sender-url` where the sender is; the instance is owned by node 0 (it joins first).",
        "",
        *latency_table("Latency at 500 actions/s × 100 subscribers (send → last subscriber, ms)", [
            ("one daemon", results["lat-single"]),
            ("3 nodes, subscribers spread, sender on the owner", results["lat-spread-owner"]),
            ("3 nodes, subscribers spread, sender on a follower", results["lat-spread-follower"]),
        ]),
        "",
        f"p99 ratio to one daemon: {results['lat-spread-owner']['last']['p99'] / single_p99:.2f}× (sender on the owner), "
        f"{results['lat-spread-follower']['last']['p99'] / single_p99:.2f}× (on a follower); goal at most 2×.",
        "",
        "### Saturated fan-out, 100 subscribers (best window of in-flight actions)",
        "",
        "| setup | window | actions/s | updates applied/s | last p50 / p99 ms | in order |",
        "|---|---|---|---|---|---|",
        sat_row("one daemon", results["sat-single"]),
        sat_row("3 nodes, subscribers and sender on a follower", results["sat-follower"]),
        "",
        f"Ratio to one daemon: {results['sat-follower']['updatesPerSecond'] / single_sat:.2f} (goal at least 0.5).",
        "",
        f"### Failover: {len(times)} owner kills (SIGKILL), leaseMs {LEASE_MS}",
        "",
        "From the kill to the ack of the first action sent after it by a writer on another node "
        "(retrying `overloaded`): the lease lapsing, the next check (leaseMs/3), the takeover and the retry.",
        "",
        f"median **{statistics.median(times):.2f} s**, worst **{times[-1]:.2f} s**, best {times[0]:.2f} s "
        f"(all: {', '.join(f'{t:.2f}' for t in results['failover'])}).",
    ]
    return "\n".join(lines)


def redis_version():
    try:
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
        return re.search(r"v=(\S+)", out).group(1)
    except Exception:
        return "?"


if __name__ == "__main__":
    main()
