#!/usr/bin/env python3
"""Compression and checksums, measured in one sitting (BENCHMARKS.md, "Compression and
checksums"): every figure of issue 39 against the same release build, one after the other.

  scripts/bench-compression.py [--daemon PATH] [--bench PATH] [--json-bench PATH]
                               [--quick] [--keep DIR]

1. Frame bytes per update, with and without permessage-deflate, for the counter, todo and doc
   kinds: a subscriber reads what a sender's actions cause, on raw sockets (Python), each
   action awaited (one version per frame) and then in bursts (runs merged into frames of
   several versions); plus a late joiner's snapshot. Bytes are WebSocket frames as they came
   (headers included; TCP/IP not counted), per version that reached the subscriber.
2. Fan-out CPU per update: reactorhub-bench fanout with 100 and 1,000 subscribers, each run
   with and without --deflate (subscribers offer the extension), small actions (frames under
   1,024 bytes: sent plain) and 1.5 KB ones (--text-pad: a pad of words that changes with
   every action, so each patch carries it and goes compressed), at a fixed rate and at
   saturation.
   Server CPU seconds (from /proc) over updates applied.
3. Resident memory per joined connection: reactorhub-bench idle, 10,000 connections on 100
   doc reactors, with and without --deflate (the join itself sent compressed).
4. `json-bench frames`: compressing a frame by size and level, a state's sum per version.

Prints every result and a markdown summary; raw results go to --keep DIR when given.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))

from deflate_support import WireClient  # noqa: E402

OFFER = "permessage-deflate; client_max_window_bits"


class Server:
    """A fresh release daemon on an ephemeral port with bench/daemon.json (plus `extra`)."""

    def __init__(self, binary: str, work: pathlib.Path, extra: dict | None = None, name: str = "daemon"):
        config = json.loads((ROOT / "bench" / "daemon.json").read_text())
        for key, value in (extra or {}).items():
            if isinstance(value, dict):
                config.setdefault(key, {}).update(value)
            else:
                config[key] = value
        path = work / f"{name}.json"
        path.write_text(json.dumps(config))
        self.log = open(work / f"{name}.log", "ab")
        self.process = subprocess.Popen([binary, "--config", str(path), "--port", "0"], stdout=subprocess.PIPE, stderr=self.log)
        line = self.process.stdout.readline().decode()
        if not line.startswith("listening on http://"):
            raise RuntimeError(f"the daemon did not start: {line!r}")
        self.port = int(line.strip().rsplit(":", 1)[1])
        self.pid = self.process.pid

    def stop(self):
        self.process.terminate()
        self.process.wait(20)
        self.log.close()


# --- 1. Frame bytes per update ------------------------------------------------------------

TITLES = ["Buy oat milk", "Call the plumber about the kitchen sink", "Book flights to Lisbon", "Renew passport",
          "Water the plants on the balcony", "Write the quarterly report", "Pick up the dry cleaning",
          "Plan Sunday's lunch with the neighbours", "Fix the bike's back brake", "Reply to Amélie's email"]
WORDS = ("the state of each reactor is kept in sync with every client that joins it and a patch carries "
         "only what changed while a snapshot carries everything at once").split()


def todo_actions(rng: random.Random, count: int) -> list[dict]:
    actions, ids = [], []
    for index in range(count):
        choice = rng.random()
        if len(ids) < 5 or choice < 0.45:
            actions.append({"type": "add", "title": f"{rng.choice(TITLES)} #{index}"})
            ids.append(None)  # filled in from the state as the adds land
        elif choice < 0.75:
            actions.append({"type": "toggle", "id": "?"})
        elif choice < 0.9:
            actions.append({"type": "rename", "id": "?", "title": f"{rng.choice(TITLES)} (again) #{index}"})
        else:
            actions.append({"type": "move", "from": 0, "to": 1})
    return actions


# What a kind's state holds before the measured actions (not counted): the doc's two maps.
SETUP = {"doc": [{"type": "set", "path": "/paragraphs", "value": {}}, {"type": "set", "path": "/cursors", "value": {}},
                 {"type": "set", "path": "/title", "value": "Minutes"}]}


def doc_actions(rng: random.Random, count: int) -> list[dict]:
    actions = []
    for index in range(count):
        choice = rng.random()
        if choice < 0.5:
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 45)))
            actions.append({"type": "set", "path": f"/paragraphs/p{rng.randint(0, 40)}", "value": {"text": text, "author": rng.choice(["ann", "bob", "chloé"]), "edited": 1764790000 + index}})
        elif choice < 0.8:
            actions.append({"type": "set", "path": f"/cursors/{rng.choice(['ann', 'bob', 'chloé'])}", "value": {"paragraph": rng.randint(0, 40), "offset": rng.randint(0, 300)}})
        else:
            actions.append({"type": "set", "path": "/title", "value": f"Minutes of the {index}th meeting"})
    return actions


def resolve(action: dict, state: dict | None) -> dict:
    """Todo actions that need an existing id take one from the state the sender holds."""
    if action.get("id") == "?":
        items = (state or {}).get("items") or []
        if not items:
            return {"type": "add", "title": "placeholder"}
        return {**action, "id": random.Random(len(items)).choice(items)["id"]}
    if action.get("type") == "move":
        items = (state or {}).get("items") or []
        if len(items) < 2:
            return {"type": "add", "title": "placeholder"}
    return action


class Sender:
    """A plain client that keeps the state it acts on (todo ids), from its own frames."""

    def __init__(self, port: int, reactor: str):
        import jsonpatch
        self.jsonpatch = jsonpatch
        self.client = WireClient(port)
        self.client.next_message()
        self.reactor = reactor
        self.client.send_json({"type": "join", "reactor": reactor, "ref": "j"})
        snapshot = self.client.until(lambda m: m.get("ref") == "j").json()
        self.state, self.version = snapshot["state"], snapshot["version"]

    def pump(self, until_version: int | None = None):
        while until_version is None or self.version < until_version:
            message = self.client.next_message().json()
            if message.get("type") == "patch":
                self.state = self.jsonpatch.apply_patch(self.state, message["patch"])
                self.version = message["version"]
            if until_version is None:
                return message

    def act(self, action: dict, ref: str) -> dict:
        self.client.send_json({"type": "action", "reactor": self.reactor, "action": action, "ref": ref})
        while True:
            message = self.client.next_message().json()
            if message.get("type") == "patch":
                self.state = self.jsonpatch.apply_patch(self.state, message["patch"])
                self.version = message["version"]
            if message.get("ref") == ref:
                return message


def wire_workload(binary: str, work: pathlib.Path, kind: str, actions: list[dict], burst: int) -> dict:
    """One sender acting on `KIND/w`, two subscribers (one plain, one offering the extension)
    reading everything; `burst` actions sent at a time (1: each awaited). Returns bytes per
    version for each subscriber and the late joiners' snapshot sizes."""
    server = Server(binary, work, {"reactors": {"counter": {"delayMs": 0}}}, name=f"wire-{kind}-{burst}")
    try:
        reactor = f"{kind}/w{burst}"
        sender = Sender(server.port, reactor)
        for index, action in enumerate(SETUP.get(kind, [])):
            sender.act(action, f"setup{index}")
        subscribers = {"plain": WireClient(server.port), "deflate": WireClient(server.port, OFFER)}
        for name, client in subscribers.items():
            client.next_message()
            client.send_json({"type": "join", "reactor": reactor, "ref": "s"})
            client.until(lambda m: m.get("ref") == "s")
            client.wire_bytes = len(client.buffer)  # counted from here: what is read past the snapshot
        start_version = sender.version
        sent = 0
        while sent < len(actions):
            chunk = actions[sent:sent + burst]
            for offset, action in enumerate(chunk):
                sender.client.send_json({"type": "action", "reactor": reactor, "action": resolve(action, sender.state), "ref": f"a{sent + offset}"})
            last_ref = f"a{sent + len(chunk) - 1}"
            while True:
                message = sender.pump()
                if message.get("ref") == last_ref:
                    break
            sent += len(chunk)
        final = sender.version
        result = {"kind": kind, "burst": burst, "actions": len(actions), "versions": final - start_version}
        for name, client in subscribers.items():
            frames = payload = compressed = 0
            version = start_version
            while version < final:
                frame = client.next_message()
                message = frame.json()
                frames += 1
                payload += len(frame.text().encode())
                compressed += frame.rsv1
                if message.get("type") == "patch":
                    version = message["version"]
            result[name] = {"wireBytes": client.wire_bytes - len(client.buffer), "payloadBytes": payload, "frames": frames,
                            "compressedFrames": compressed, "bytesPerVersion": (client.wire_bytes - len(client.buffer)) / max(1, final - start_version)}
        for name, offer in (("plain", None), ("deflate", OFFER)):
            late = WireClient(server.port, offer)
            late.next_message()
            before = late.wire_bytes - len(late.buffer)
            late.send_json({"type": "join", "reactor": reactor, "ref": "late"})
            late.until(lambda m: m.get("ref") == "late")
            result[name]["snapshotBytes"] = late.wire_bytes - len(late.buffer) - before
            late.close()
        return result
    finally:
        server.stop()


def wire_section(binary: str, work: pathlib.Path, quick: bool) -> list[dict]:
    rng = random.Random(39)
    count = 60 if quick else 300
    workloads = {
        "counter": [{"type": "increase"} if index % 3 else {"type": "decrease"} for index in range(count // 3)],
        "todo": todo_actions(rng, count),
        "doc": doc_actions(rng, count),
    }
    results = []
    for kind, actions in workloads.items():
        for burst in (1, 20):
            result = wire_workload(binary, work, kind, actions, burst)
            print(json.dumps(result), flush=True)
            results.append(result)
    return results


# --- 2 and 3. reactorhub-bench ------------------------------------------------------------

def bench_run(bench: str, binary: str, work: pathlib.Path, arguments: list[str], label: str, connections: int) -> dict:
    extra = {"limits": {"maxConnections": connections + 200}}
    server = Server(binary, work, extra, name=label)
    try:
        command = [bench, *arguments, "--url", f"ws://127.0.0.1:{server.port}/ws", "--server-pid", str(server.pid), "--label", label, "--quiet"]
        output = subprocess.run(command, capture_output=True, text=True, timeout=600)
        for line in output.stdout.splitlines():
            if line.startswith("RESULT "):
                result = json.loads(line[len("RESULT "):])
                print(json.dumps(result), flush=True)
                return result
        raise RuntimeError(f"{label}: no RESULT line\n{output.stdout}\n{output.stderr}")
    finally:
        server.stop()


def fanout_section(bench: str, binary: str, work: pathlib.Path, quick: bool) -> list[dict]:
    duration = "3" if quick else "6"
    results = []
    for subscribers, rate, windows in ((100, "500", "64,256,512"), (1000, "100", "16,64,128")):
        for size, repeat, deflate in [(size, repeat, deflate) for size in (100, 1500) for repeat in (1, 2) for deflate in (False, True)]:
            if True:
                flags = ["--deflate"] if deflate else []
                common = ["fanout", "--subscribers", str(subscribers), "--size", str(size), "--text-pad", "--duration", duration, "--warmup", "1", *flags]
                for pace, value in (("rate", rate), ("window", windows)):
                    label = f"fanout-{subscribers}-{size}-{pace}-{'deflate' if deflate else 'plain'}"
                    result = bench_run(bench, binary, work, [*common, f"--{pace}", value], label, subscribers + 10)
                    result.update({"subscriberCount": subscribers, "sizeAsked": size, "deflate": deflate, "paceKind": pace, "repeat": repeat})
                    results.append(result)
    return results


def idle_section(bench: str, binary: str, work: pathlib.Path, quick: bool) -> list[dict]:
    connections = 2000 if quick else 10000
    results = []
    for deflate in (False, True, False, True):
        label = f"idle-{'deflate' if deflate else 'plain'}"
        result = bench_run(bench, binary, work, ["idle", "--connections", str(connections), "--reactors", "100", *(["--deflate"] if deflate else [])],
                           label, connections)
        result["deflate"] = deflate
        results.append(result)
    return results


def frames_section(json_bench: str) -> str:
    output = subprocess.run([json_bench, "frames"], capture_output=True, text=True, timeout=900)
    print(output.stdout, flush=True)
    return output.stdout


# --- summary ------------------------------------------------------------------------------

def summary(wire: list[dict], fanout: list[dict], idle: list[dict], frames: str) -> str:
    lines = ["### Frame bytes per update (one subscriber; WebSocket frames, headers included)", "",
             "| kind | actions sent | versions | plain: bytes/version | deflate: bytes/version | ratio | frames compressed | snapshot of a late joiner, plain → deflate |",
             "|---|---|---|---|---|---|---|---|"]
    for result in wire:
        plain, deflate = result["plain"], result["deflate"]
        pace = "one at a time" if result["burst"] == 1 else f"{result['burst']} at a time"
        lines.append(f"| {result['kind']} | {result['actions']}, {pace} | {result['versions']} | {plain['bytesPerVersion']:.1f} | {deflate['bytesPerVersion']:.1f} | "
                     f"**{deflate['bytesPerVersion'] / plain['bytesPerVersion']:.2f}×** | {deflate['compressedFrames']} of {deflate['frames']} | "
                     f"{plain['snapshotBytes']:,} → {deflate['snapshotBytes']:,} B |")
    lines += ["", "### Fan-out: server CPU per update", "",
              "| subscribers | action size | pace | plain: µs/update, mean (runs) | deflate: µs/update, mean (runs) | ratio of means | updates/s plain → deflate | bytes/update plain → deflate |",
              "|---|---|---|---|---|---|---|---|"]
    keyed: dict = {}
    for r in fanout:
        keyed.setdefault((r["subscriberCount"], r["sizeAsked"], r["paceKind"], r["deflate"]), []).append(r)

    def per_update(r):
        updates = r["updatesPerSecond"] * r["seconds"]
        return r["serverCPUSeconds"] * 1e6 / updates if updates else float("nan")

    def mean(values):
        return sum(values) / len(values)
    for (subscribers, size, pace, deflate), runs in keyed.items():
        others = keyed.get((subscribers, size, pace, True))
        if deflate or not others:
            continue
        plain_cpu, deflate_cpu = [per_update(r) for r in runs], [per_update(r) for r in others]
        lines.append(f"| {subscribers} | {size} B | {'fixed rate' if pace == 'rate' else 'saturation'} | "
                     f"{mean(plain_cpu):.3f} ({', '.join(f'{v:.3f}' for v in plain_cpu)}) | {mean(deflate_cpu):.3f} ({', '.join(f'{v:.3f}' for v in deflate_cpu)}) | "
                     f"**{mean(deflate_cpu) / mean(plain_cpu):.2f}×** | {mean([r['updatesPerSecond'] for r in runs]):,.0f} → {mean([r['updatesPerSecond'] for r in others]):,.0f} | "
                     f"{mean([r['wireBytesPerUpdate'] for r in runs]):.1f} → {mean([r['wireBytesPerUpdate'] for r in others]):.1f} |")
    lines += ["", "### Idle joined connections: resident memory per connection", "",
              "| run | connections | bytes per connection |", "|---|---|---|"]
    for result in idle:
        lines.append(f"| {'deflate' if result['deflate'] else 'plain'} | {result['joined']:,} | {result.get('bytesPerConnection', 'n/a')} |")
    lines += ["", "### json-bench frames", "", "```", frames.rstrip(), "```"]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemon", default=str(ROOT / ".build" / "release" / "reactorhub"))
    parser.add_argument("--bench", default=str(ROOT / ".build" / "release" / "reactorhub-bench"))
    parser.add_argument("--json-bench", default=str(ROOT / ".build" / "release" / "json-bench"))
    parser.add_argument("--quick", action="store_true", help="short runs: a smoke test of the script")
    parser.add_argument("--keep", help="a folder for the raw results and the daemons' logs")
    parser.add_argument("--only", help="comma-separated sections: wire, fanout, idle, frames")
    options = parser.parse_args()
    work = pathlib.Path(options.keep or tempfile.mkdtemp(prefix="rh-bench-compression-"))
    work.mkdir(parents=True, exist_ok=True)
    sections = set((options.only or "wire,fanout,idle,frames").split(","))
    started = time.time()
    wire = wire_section(options.daemon, work, options.quick) if "wire" in sections else []
    fanout = fanout_section(options.bench, options.daemon, work, options.quick) if "fanout" in sections else []
    idle = idle_section(options.bench, options.daemon, work, options.quick) if "idle" in sections else []
    frames = frames_section(options.json_bench) if "frames" in sections else ""
    (work / "results.json").write_text(json.dumps({"wire": wire, "fanout": fanout, "idle": idle, "frames": frames}, indent=1))
    print(summary(wire, fanout, idle, frames))
    print(f"\n(took {time.time() - started:.0f} s; raw results in {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
