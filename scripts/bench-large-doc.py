#!/usr/bin/env python3
"""Edits in a large `doc` (issue 38, BENCHMARKS.md, "Issue 38: the kind looked up on refusal, and edits in a large document").

Fills one `doc` with M members (`patch` actions of 200 `add`s, not measured), then measures
the daemon's CPU per action (the run time of all its threads, /proc/PID/task/*/schedstat,
in nanoseconds) over three kinds of edit, each acked, 256 in flight, one connection:

  set     `set /kI` of an existing member (cycling over them); with M = 0, of /k0
  add     `set /aI` of new members, as many as `reactors.doc.maxElements` (10,000 members
          in one object) allows, at most --actions
  array   the doc holds /items, an array of M objects; `set /items/I/done` (M >= 1)

for every M of --members and every daemon (--daemon, and --baseline in alternate rounds),
a fresh daemon (bench/daemon.json) per figure. The client is Python (websockets), so the
daemon sees small bursts: compare builds with each other, not with bench-ingest.sh.

  scripts/bench-large-doc.py [--members 0,1000,9000] [--actions 4000] [--rounds 2]
                             [--kinds set,add,array] [--daemon PATH] [--baseline PATH]

Build first: swift build -c release --product reactorhub. Needs the test venv (.venv).
"""
import argparse
import asyncio
import json
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile

import websockets

ROOT = pathlib.Path(__file__).resolve().parents[1]
MAX_ELEMENTS = 10_000  # reactors.doc.maxElements (the default): members of one object


def cpu_seconds(pid: int) -> float:
    """Run time of every thread of `pid` (threads that ended are not counted: the daemon's
    threads live as long as it does)."""
    total = 0
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total / 1e9


async def call(ws, message: dict) -> None:
    await ws.send(json.dumps(message))
    while True:
        reply = json.loads(await ws.recv())
        if reply.get("type") == "error":
            sys.exit(f"bench-large-doc: {reply}")
        if reply.get("type") == "ack" and reply.get("ref") == message["ref"]:
            return


async def measure(url: str, pid: int, kind: str, members: int, actions: int) -> tuple[float, int]:
    """Daemon CPU µs per action and the number of actions measured."""
    reactor = "doc/large"
    async with websockets.connect(url, max_size=None) as ws:
        await ws.send(json.dumps({"type": "join", "reactor": reactor, "ref": 0}))
        while json.loads(await ws.recv()).get("ref") != 0:
            pass
        ref = 1
        if kind == "array":
            await call(ws, {"type": "action", "reactor": reactor, "ref": ref, "action": {"type": "set", "path": "/items", "value": []}})
            ref += 1
        for start in range(0, members, 200):
            if kind == "array":
                ops = [{"op": "add", "path": "/items/-", "value": {"n": i, "done": False}} for i in range(start, min(members, start + 200))]
            else:
                ops = [{"op": "add", "path": f"/k{i}", "value": {"n": i, "name": f"member {i}"}} for i in range(start, min(members, start + 200))]
            await call(ws, {"type": "action", "reactor": reactor, "ref": ref, "action": {"type": "patch", "ops": ops}})
            ref += 1
        if kind == "add":
            actions = min(actions, MAX_ELEMENTS - members)
        if kind == "set":
            paths = [f"/k{(i * 7919) % members}" if members else "/k0" for i in range(actions)]
        elif kind == "add":
            paths = [f"/a{i}" for i in range(actions)]
        else:
            paths = [f"/items/{(i * 7919) % members}/done" for i in range(actions)]
        messages = [json.dumps({"type": "action", "reactor": reactor, "ref": ref + i, "action": {"type": "set", "path": path, "value": i}})
                    for i, path in enumerate(paths)]
        before = cpu_seconds(pid)
        sent = acked = 0
        while sent < min(256, len(messages)):
            await ws.send(messages[sent])
            sent += 1
        while acked < len(messages):
            reply = json.loads(await ws.recv())
            if reply.get("type") == "error":
                sys.exit(f"bench-large-doc: {reply}")
            if reply.get("type") == "ack":
                acked += 1
                if sent < len(messages):
                    await ws.send(messages[sent])
                    sent += 1
        return 1e6 * (cpu_seconds(pid) - before) / len(messages), len(messages)


def run(binary: str, kind: str, members: int, actions: int, log: pathlib.Path) -> tuple[float, int]:
    process = subprocess.Popen([binary, "--config", str(ROOT / "bench/daemon.json"), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=open(log, "w"), cwd=ROOT)
    try:
        line = process.stdout.readline().decode()
        match = re.search(r"listening on (?:ws|http)://[0-9.]+:(\d+)", line)
        if not match:
            sys.exit(f"bench-large-doc: the daemon did not start: {line!r}; see {log}")
        return asyncio.run(measure(f"ws://127.0.0.1:{match.group(1)}/ws", process.pid, kind, members, actions))
    finally:
        process.terminate()
        process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--members", default="0,1000,9000")
    parser.add_argument("--actions", type=int, default=4000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--kinds", default="set,add,array")
    parser.add_argument("--daemon", default=str(ROOT / ".build/release/reactorhub"))
    parser.add_argument("--baseline")
    args = parser.parse_args()
    daemons = [("daemon", args.daemon)] + ([("baseline", args.baseline)] if args.baseline else [])
    work = pathlib.Path(tempfile.mkdtemp(prefix="reactorhub-bench-large-doc."))
    results: dict[tuple[str, str, int], list[float]] = {}
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    for kind in args.kinds.split(","):
        for members in [int(m) for m in args.members.split(",")]:
            if kind == "array" and members == 0:
                continue
            size = min(members, MAX_ELEMENTS - 1) if kind != "add" else min(members, MAX_ELEMENTS - args.actions)
            for round in range(args.rounds):
                for name, binary in (daemons if round % 2 == 0 else list(reversed(daemons))):
                    micros, count = run(binary, kind, size, args.actions, work / f"{name}.log")
                    results.setdefault((name, kind, size), []).append(micros)
                    print(f"{kind:5} {size:5} members  {name:8} {micros:7.1f} µs per action ({count} actions)", flush=True)
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")
    print("medians, daemon CPU µs per action:")
    for (name, kind, size), values in results.items():
        print(f"  {kind:5} {size:5} members  {name:8} {statistics.median(values):7.1f}")


if __name__ == "__main__":
    main()
