#!/usr/bin/env python3
"""Presence under load (BENCHMARKS.md, "Presence under load"): N connections join one
reactor and each sets its presence once a second (spread evenly over the second) for D
seconds; prints what a member receives (presence frames per second, the entries each frame
lists, bytes) and what the daemon spends (utime+stime from /proc/PID/stat over the run).

  scripts/bench-presence.py [--connections 1000] [--duration 20] [--max-listed 100,1000]
                            [--rounds 1] [--batch 100] [--observers 20] [--daemon PATH]
                            [--json FILE]

One run per --max-listed value and round (values alternate), each on a fresh daemon (bench/daemon.json: rate limits
lifted, plus `presence.maxListed`): at 100 (the default) 1,000 entries are past the limit
and every frame carries only `presenceCount`; at 1,000 the frames list the changed entries.
The daemon is the release build (.build/release/reactorhub, built when missing). The
client is plain asyncio with its own WebSocket framing (no library) so that reading
~30,000 frames a second stays well under a core: every member counts its frames, the
--observers (spread over the members) also parse them, count the entries listed and time
the gaps between frames (the server's 30 ms coalescing window plus its timer's delay).
Connections open --batch at a time; each waits for its snapshot before the next batch.
The machine's load average and the CPU the rest of the machine used are printed too:
a busy machine shows in the daemon's wall-clock behaviour, less in its CPU per update.
"""
import argparse
import asyncio
import base64
import json
import os
import pathlib
import resource
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
REACTOR = "doc/bench-presence"
PRESENCE = b'{"type":"presence"'
SNAPSHOT = b'{"type":"snapshot"'
ERROR = b'{"type":"error"'


def frame(text: str) -> bytes:
    """A masked client text frame; the mask key is zero (any key is valid), so the payload
    goes as it is."""
    payload = text.encode()
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", 0x81, 0x80 | n)
    elif n < 65536:
        header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
    else:
        header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
    return header + b"\0\0\0\0" + payload


class Member(asyncio.Protocol):
    """One connection: the upgrade, then server frames parsed from the buffer in place."""

    def __init__(self, index: int, observe: bool, port: int):
        self.index = index
        self.observe = observe
        self.port = port
        self.buffer = bytearray()
        self.upgraded = False
        self.fragments = []
        self.loop = asyncio.get_running_loop()
        self.hello = self.loop.create_future()
        self.snapshot = self.loop.create_future()
        self.closed = self.loop.create_future()
        self.transport = None
        self.session = None
        # counted while measuring
        self.measuring = False
        self.frames = 0
        self.bytes = 0
        self.entries = 0  # joins + leaves listed (observers)
        self.count_frames = 0  # frames with presenceCount only (observers)
        self.arrivals = []  # when each presence frame came (observers)
        self.errors = 0
        self.resyncs = 0
        # what an observer knows of the room: sessions, or the server's count
        self.known = set()
        self.count = None

    def connection_made(self, transport):
        self.transport = transport
        key = base64.b64encode(os.urandom(16)).decode()
        transport.write((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nUpgrade: websocket\r\n"
                         f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                         f"Sec-WebSocket-Protocol: reactorhub.v1\r\n\r\n").encode())

    def connection_lost(self, exc):
        if not self.closed.done():
            self.closed.set_result(exc)
        for future in (self.hello, self.snapshot):
            if not future.done():
                future.set_exception(ConnectionError(f"member {self.index}: connection lost"))

    def send(self, text: str):
        self.transport.write(frame(text))

    def data_received(self, data):
        buffer = self.buffer
        buffer += data
        if not self.upgraded:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buffer[:buffer.find(b"\r\n")])
            if b" 101 " not in status:
                self.transport.close()
                raise ConnectionError(f"member {self.index}: upgrade refused: {status!r}")
            del buffer[:end + 4]
            self.upgraded = True
        position, size = 0, len(buffer)
        while size - position >= 2:
            first, second = buffer[position], buffer[position + 1]
            length = second & 0x7F
            start = position + 2
            if length == 126:
                if size - position < 4:
                    break
                length = struct.unpack_from("!H", buffer, position + 2)[0]
                start = position + 4
            elif length == 127:
                if size - position < 10:
                    break
                length = struct.unpack_from("!Q", buffer, position + 2)[0]
                start = position + 10
            if size < start + length:
                break
            payload = bytes(buffer[start:start + length])
            position = start + length
            opcode = first & 0x0F
            if opcode == 0x9:  # ping: a masked pong with the same payload
                self.transport.write(struct.pack("!BB", 0x8A, 0x80 | len(payload)) + b"\0\0\0\0" + payload)
            elif opcode in (0x0, 0x1):
                self.fragments.append(payload)
                if first & 0x80:
                    message = self.fragments[0] if len(self.fragments) == 1 else b"".join(self.fragments)
                    self.fragments = []
                    self.message(message)
            elif opcode == 0x8:
                self.transport.close()
        del buffer[:position]

    def message(self, message: bytes):
        if message.startswith(PRESENCE):
            if self.measuring:
                self.frames += 1
                self.bytes += len(message)
                if self.observe:
                    self.arrivals.append(time.monotonic())
            if self.observe:
                self.presence(json.loads(message))
        elif message.startswith(SNAPSHOT):
            if self.snapshot.done():
                self.resyncs += 1
            else:
                self.snapshot.set_result(None)
            if self.observe:
                snapshot = json.loads(message)
                self.known = set(snapshot.get("presence", {}))
                self.count = snapshot.get("presenceCount")
        elif message.startswith(ERROR):
            self.errors += 1
            if self.errors <= 3:
                print(f"member {self.index}: {message.decode()[:200]}", file=sys.stderr)
        elif not self.hello.done():
            hello = json.loads(message)
            self.session = hello.get("session")
            self.hello.set_result(hello)

    def presence(self, frame):
        if "presenceCount" in frame:
            self.count = frame["presenceCount"]
            self.known = set()
            if self.measuring:
                self.count_frames += 1
            return
        joins, leaves = frame.get("joins", {}), frame.get("leaves", [])
        self.count = None
        self.known.update(joins)
        self.known.difference_update(leaves)
        if self.measuring:
            self.entries += len(joins) + len(leaves)

    def room_size(self):
        return self.count if self.count is not None else len(self.known)


def proc_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


def machine_ticks() -> int:
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    return values[0] + values[1] + values[2] + values[5] + values[6] + values[7]  # busy: all but idle, iowait


def self_ticks() -> int:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return round((usage.ru_utime + usage.ru_stime) * TICKS)


def start_daemon(binary: pathlib.Path, max_listed: int, workdir: pathlib.Path):
    config = json.loads((ROOT / "bench" / "daemon.json").read_text())
    config["presence"] = {"maxListed": max_listed}
    path = workdir / f"presence-{max_listed}.json"
    path.write_text(json.dumps(config))
    process = subprocess.Popen([str(binary), "--config", str(path), "--port", "0", "--web-root", str(ROOT / "web")],
                               stdout=subprocess.PIPE, stderr=open(workdir / f"daemon-{max_listed}.log", "wb"))
    line = process.stdout.readline().decode().strip()
    if not line.startswith("listening on http://"):
        process.kill()
        raise RuntimeError(f"the daemon did not start: {line!r} (see {workdir}/daemon-{max_listed}.log)")
    return process, int(line.rsplit(":", 1)[1])


async def open_members(port: int, count: int, batch: int, observers: int):
    loop = asyncio.get_running_loop()
    step = max(1, count // max(1, observers))
    observed = set(range(0, count, step)[:observers])
    members = []

    async def one(index):
        _, member = await loop.create_connection(lambda: Member(index, index in observed, port), "127.0.0.1", port)
        await asyncio.wait_for(member.hello, 30)
        member.send(json.dumps({"type": "join", "reactor": REACTOR}))
        await asyncio.wait_for(member.snapshot, 30)
        return member

    for first in range(0, count, batch):
        members += await asyncio.gather(*(one(i) for i in range(first, min(count, first + batch))))
    return members


async def until(predicate, what: str, timeout: float):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def run(binary: pathlib.Path, max_listed: int, args, workdir: pathlib.Path) -> dict:
    process, port = start_daemon(binary, max_listed, workdir)
    try:
        opened = time.monotonic()
        members = await open_members(port, args.connections, args.batch, args.observers)
        open_s = time.monotonic() - opened
        observers = [m for m in members if m.observe]
        n = len(members)
        # Everyone sets a first presence; wait until every observer knows the whole room.
        for m in members:
            m.send(json.dumps({"type": "presence", "reactor": REACTOR, "state": {"n": 0}}))
        await until(lambda: all(o.room_size() == n for o in observers), f"the observers to see {n} entries", 60)
        await asyncio.sleep(0.2)  # the last broadcasts of that burst

        load_before = os.getloadavg()
        daemon0, machine0, self0 = proc_ticks(process.pid), machine_ticks(), self_ticks()
        for m in members:
            m.measuring = True
        t0 = time.monotonic()
        sent = 0
        lag_max = 0.0
        # Member i sends at t0 + k + i/n for k = 0 … duration-1: n updates a second, evenly spread.
        for k in range(args.duration):
            for i, m in enumerate(members):
                due = t0 + k + i / n
                now = time.monotonic()
                if due > now:
                    await asyncio.sleep(due - now)
                else:
                    lag_max = max(lag_max, now - due)
                m.send(json.dumps({"type": "presence", "reactor": REACTOR, "state": {"n": k + 1, "cursor": i}}))
                sent += 1
        t_end = t0 + args.duration
        now = time.monotonic()
        if t_end > now:
            await asyncio.sleep(t_end - now)
        for m in members:
            m.measuring = False
        window = time.monotonic() - t0
        daemon1, machine1, self1 = proc_ticks(process.pid), machine_ticks(), self_ticks()
        load_after = os.getloadavg()
        closed = sum(1 for m in members if m.closed.done())

        per_member = [m.frames / window for m in members]
        gaps = sorted(b - a for o in observers for a, b in zip(o.arrivals, o.arrivals[1:]))
        gap = lambda q: round(1000 * gaps[min(len(gaps) - 1, int(q * len(gaps)))], 1) if gaps else None
        frames = sum(o.frames for o in observers)
        daemon_cpu = (daemon1 - daemon0) / TICKS
        result = {
            "maxListed": max_listed, "connections": n, "duration_s": round(window, 2), "open_s": round(open_s, 1),
            "updates_sent": sent, "updates_per_s": round(sent / window), "sender_lag_max_ms": round(lag_max * 1000, 1),
            "frames_per_member_per_s": {
                "mean": round(statistics.fmean(per_member), 2), "median": round(statistics.median(per_member), 2),
                "min": round(min(per_member), 2), "max": round(max(per_member), 2)},
            "frames_per_s_all_members": round(sum(m.frames for m in members) / window),
            "gap_between_frames_ms": {"p10": gap(0.1), "median": gap(0.5), "p90": gap(0.9), "max": gap(1.0)},
            "bytes_per_member_per_s": round(statistics.fmean(m.bytes for m in members) / window),
            "bytes_per_frame": round(sum(m.bytes for m in members) / max(1, sum(m.frames for m in members))),
            "observers": len(observers),
            "entries_per_frame": round(sum(o.entries for o in observers) / max(1, frames), 2),
            "count_only_frames": f"{sum(o.count_frames for o in observers)} of {frames}",
            "daemon_cpu_s": round(daemon_cpu, 2), "daemon_cpu_percent_of_a_core": round(100 * daemon_cpu / window, 1),
            "daemon_cpu_per_update_us": round(1e6 * daemon_cpu / max(1, sent), 1),
            "daemon_cpu_per_frame_delivered_us": round(1e6 * daemon_cpu / max(1, sum(m.frames for m in members)), 2),
            "client_cpu_percent_of_a_core": round(100 * (self1 - self0) / TICKS / window, 1),
            "rest_of_machine_cores": round(((machine1 - machine0) - (daemon1 - daemon0) - (self1 - self0)) / TICKS / window, 2),
            "load_average_before": [round(x, 2) for x in load_before], "load_average_after": [round(x, 2) for x in load_after],
            "errors": sum(m.errors for m in members), "resync_snapshots": sum(m.resyncs for m in members),
            "connections_closed": closed,
        }
        for m in members:
            m.transport.close()
        return result
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--duration", type=int, default=20, help="seconds of updates")
    parser.add_argument("--max-listed", default="100,1000", help="presence.maxListed of each run, comma-separated")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each --max-listed value")
    parser.add_argument("--batch", type=int, default=100, help="connections opened at a time")
    parser.add_argument("--observers", type=int, default=20, help="members that parse every frame")
    parser.add_argument("--daemon", type=pathlib.Path, default=ROOT / ".build" / "release" / "reactorhub")
    parser.add_argument("--json", type=pathlib.Path, help="also write the results there")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = args.connections * 2 + 64  # our sockets, and the daemon's (it inherits the limit)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, wanted), hard))
    if not args.daemon.exists():
        subprocess.run(["swift", "build", "-c", "release", "--product", "reactorhub"], cwd=ROOT, check=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="rh-bench-presence-") as folder:
        values = [int(v) for v in args.max_listed.split(",")]
        for value in [v for r in range(args.rounds) for v in (values if r % 2 == 0 else values[::-1])]:
            print(f"== {args.connections} connections, each setting its presence once a second for "
                  f"{args.duration} s, presence.maxListed {value}", flush=True)
            result = asyncio.run(run(args.daemon, value, args, pathlib.Path(folder)))
            results.append(result)
            for key, value in result.items():
                print(f"  {key}: {value}")
            sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
