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

Prints the figures and, unless --no-write, writes them into BENCHMARKS.md between the
"cluster-bench:begin" and "cluster-bench:end" markers. Numbers, never assertions.

    scripts/bench-cluster.py [--daemon PATH] [--bench PATH] [--quick] [--no-write]
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
    options = parser.parse_args()
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
    if not options.no_write:
        path = pathlib.Path(options.output)
        text = path.read_text()
        begin, end = "<!-- cluster-bench:begin", "<!-- cluster-bench:end -->"
        block = f"{begin} (written by scripts/bench-cluster.py; edit outside these markers) -->\n{table}\n{end}"
        if begin in text:
            text = re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, text, flags=re.S)
        else:
            text = text.rstrip() + "\n\n" + block + "\n"
        path.write_text(text)


def ms(micros):
    return f"{micros / 1000:.2f}"


def render(results, elapsed, options):
    def lat_row(label, r):
        last = r["last"]
        return f"| {label} | {r['updatesPerSecond']:,.0f} | {ms(last['p50'])} / **{ms(last['p99'])}** / {ms(last['max'])} | {'yes' if r['ordered'] else 'NO'} |"

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
        "### Latency at 500 actions/s × 100 subscribers (send → last subscriber, ms)",
        "",
        "| setup | updates/s | last subscriber p50 / p99 / max | in order |",
        "|---|---|---|---|",
        lat_row("one daemon", results["lat-single"]),
        lat_row("3 nodes, subscribers spread, sender on the owner", results["lat-spread-owner"]),
        lat_row("3 nodes, subscribers spread, sender on a follower", results["lat-spread-follower"]),
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
