#!/usr/bin/env python3
"""The HTTP API against WebSocket (BENCHMARKS.md, "The HTTP API and the event stream"),
in one sitting on one daemon per run:

  scripts/bench-api.py [--duration 5] [--rounds 3] [--clients 1,16] [--subscribers 100,500]
                       [--windows 64,256] [--daemon PATH] [--json FILE]

Actions: C clients, each on its own `doc` reactor, each with one action in flight: over
HTTP a keep-alive connection that POSTs `/api/v1/reactors/doc/ID/actions` and reads the
200 answer before the next; over WebSocket a connection that joined its reactor (the
protocol needs the join) and sends the next action when the `ack` comes. Every action is
a doc `set` of `/s0` to `{"seq":N,"pad":"x"}`. Counted: answers (every one checked to be a
200, or an `ack`) per second over --duration after 1 s of warm-up.

Fan-out: N subscribers follow one `doc` reactor, all over WebSocket (join) or all over the
event stream (`GET …/events`); one WebSocket sender keeps at most W actions ahead of
the slowest subscriber (it stops at the window and goes on once every subscriber holds
half of it), for each W of --windows. A subscriber holds the version of the last
`id: EPOCH:VERSION` line (event stream) or `"version":V` member (WebSocket) in what it
read, which counts coalesced patches and resync snapshots as the versions they cover.
Counted: versions that reached a subscriber per second (N × versions advanced /
duration). The client waits 250 µs between epoll turns so that one `recv` takes several
events (the same for both transports).

The client is one Python process on raw sockets and epoll; per `recv` it does one
backwards search (C speed) for the last version in the bytes read, the same for both
transports, and no JSON parsing. It prints its own CPU, the daemon's (utime+stime from
/proc/PID/stat) and the rest of the machine's, and the load average, so a run where the
client or a neighbour was the limit can be recognised. Before each run it waits (at most
--quiet-wait s) until the rest of the machine uses less than half a core. Each run gets a
fresh daemon (bench/daemon.json: rate limits lifted); runs alternate between the
transports, --rounds times, and the best of each is kept (load elsewhere can only make a
figure worse); every run is listed too.
"""
import argparse
import base64
import json
import os
import pathlib
import re
import resource
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
WS_VERSION = re.compile(rb'"version":(\d+)[,}]')
SSE_VERSION = re.compile(rb'\nid: [^:\n]*:(\d+)\n')
TAIL = 64  # bytes kept from one read to the next, for a version split between them


def last_ws_version(data: bytes):
    """The version of the last complete `"version":V` in `data` (rfind: C speed, whatever
    the read's size), or None."""
    end = len(data)
    while (i := data.rfind(b'"version":', 0, end)) >= 0:
        match = WS_VERSION.match(data, i)
        if match:
            return int(match.group(1))
        end = i
    return None


def last_sse_version(data: bytes):
    """The version of the last complete `id: EPOCH:VERSION` line in `data`, or None."""
    end = len(data)
    while (i := data.rfind(b"\nid: ", 0, end)) >= 0:
        match = SSE_VERSION.match(data, i)
        if match:
            return int(match.group(1))
        end = i
    return None


def ws_frame(text: str) -> bytes:
    """A masked client text frame (mask key zero: the payload goes as it is)."""
    payload = text.encode()
    n = len(payload)
    if n < 126:
        header = bytes([0x81, 0x80 | n])
    else:
        header = bytes([0x81, 0x80 | 126]) + n.to_bytes(2, "big")
    return header + b"\0\0\0\0" + payload


def action_text(seq: int) -> str:
    return json.dumps({"type": "set", "path": "/s0", "value": {"seq": seq, "pad": "x"}}, separators=(",", ":"))


def proc_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def machine_ticks() -> int:
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:]]
    return values[0] + values[1] + values[2] + values[5] + values[6] + values[7]


def self_ticks() -> int:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return round((usage.ru_utime + usage.ru_stime) * TICKS)


class Meter:
    """CPU of the daemon, this client and the rest of the machine over a measured span."""

    def __init__(self, pid):
        self.pid = pid
        self.start = (proc_ticks(pid), self_ticks(), machine_ticks(), time.monotonic())

    def stop(self) -> dict:
        daemon, client, machine, t = proc_ticks(self.pid), self_ticks(), machine_ticks(), time.monotonic()
        d0, c0, m0, t0 = self.start
        seconds = t - t0
        daemon_cpu = (daemon - d0) / TICKS / seconds
        client_cpu = (client - c0) / TICKS / seconds
        other = (machine - m0) / TICKS / seconds - daemon_cpu - client_cpu
        return {"seconds": seconds, "daemon_cpu": daemon_cpu, "client_cpu": client_cpu,
                "other_cpu": max(0.0, other), "load": os.getloadavg()[0]}


def wait_quiet(limit: float, threshold: float = 0.5):
    """Waits (at most `limit` s) until the machine's busy CPU over a second is under
    `threshold` cores."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        m0 = machine_ticks()
        time.sleep(1)
        if (machine_ticks() - m0) / TICKS < threshold:
            return


def start_daemon(binary: pathlib.Path, workdir: pathlib.Path, name: str):
    config = json.loads((ROOT / "bench" / "daemon.json").read_text())
    path = workdir / f"{name}.json"
    path.write_text(json.dumps(config))
    process = subprocess.Popen([str(binary), "--config", str(path), "--port", "0", "--web-root", str(ROOT / "web")],
                               stdout=subprocess.PIPE, stderr=open(workdir / f"{name}.log", "wb"), cwd=ROOT)
    line = process.stdout.readline().decode().strip()
    if not line.startswith("listening on http://"):
        process.kill()
        raise RuntimeError(f"the daemon did not start: {line!r} (see {workdir}/{name}.log)")
    return process, int(line.rsplit(":", 1)[1])


def stop_daemon(process):
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def read_until(sock: socket.socket, buffer: bytearray, marker: bytes, timeout: float = 30) -> int:
    """Blocking reads into `buffer` until it holds `marker`; its index."""
    sock.settimeout(timeout)
    while (index := buffer.find(marker)) < 0:
        data = sock.recv(65536)
        if not data:
            raise ConnectionError(f"closed before {marker!r}: {bytes(buffer[:200])!r}")
        buffer += data
    return index


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def ws_open(port: int, reactor: str) -> tuple[socket.socket, int]:
    """An upgraded connection that joined `reactor`; the version of its snapshot."""
    sock = connect(port)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: reactorhub.v1\r\n\r\n").encode())
    buffer = bytearray()
    end = read_until(sock, buffer, b"\r\n\r\n")
    if b" 101 " not in buffer[:buffer.find(b"\r\n")]:
        raise ConnectionError(f"upgrade refused: {bytes(buffer[:end])!r}")
    sock.sendall(ws_frame(json.dumps({"type": "join", "reactor": reactor})))
    start = read_until(sock, buffer, b'"type":"snapshot"')
    match = None
    while match is None:
        match = WS_VERSION.search(buffer, start)
        if match is None:
            buffer += sock.recv(65536)
    sock.setblocking(False)
    return sock, int(match.group(1))


def sse_open(port: int, reactor: str) -> tuple[socket.socket, int]:
    """An event stream of `reactor`; the version of its first (snapshot) event."""
    sock = connect(port)
    sock.sendall((f"GET /api/v1/reactors/{reactor}/events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Accept: text/event-stream\r\n\r\n").encode())
    buffer = bytearray()
    read_until(sock, buffer, b"\r\n\r\n")
    if b" 200 " not in buffer[:buffer.find(b"\r\n")]:
        raise ConnectionError(f"event stream refused: {bytes(buffer[:300])!r}")
    start = read_until(sock, buffer, b"event: snapshot\n")
    read_until(sock, buffer, b"\n\n", 30)
    match = SSE_VERSION.search(buffer, start - 1)
    if match is None:
        raise ConnectionError(f"no id on the snapshot: {bytes(buffer[start:start + 200])!r}")
    sock.setblocking(False)
    return sock, int(match.group(1))


# --- actions: one in flight per client -------------------------------------------------


class HTTPActor:
    def __init__(self, port: int, reactor: str):
        self.sock = connect(port)
        self.sock.setblocking(False)
        self.port = port
        self.path = f"/api/v1/reactors/{reactor}/actions"
        self.seq = 0
        self.answers = 0
        self.refused = 0
        self.buffer = bytearray()

    def send(self):
        self.seq += 1
        body = ('{"action":' + action_text(self.seq) + "}").encode()
        self.sock.send((f"POST {self.path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\nContent-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n\r\n").encode() + body)

    def readable(self) -> int:
        """Reads; answers completed (each starts the next request)."""
        data = self.sock.recv(262144)
        if not data:
            raise ConnectionError("the daemon closed a keep-alive connection")
        buffer = self.buffer
        buffer += data
        done = 0
        while (end := buffer.find(b"\r\n\r\n")) >= 0:
            head = bytes(buffer[:end])
            length = int(re.search(rb"(?i)\r\ncontent-length: *(\d+)", head).group(1))
            if len(buffer) < end + 4 + length:
                break
            if not head.startswith(b"HTTP/1.1 200 "):
                self.refused += 1
            body = bytes(buffer[end + 4:end + 4 + length])
            if b'"applied"' not in body:
                self.refused += 1
            del buffer[:end + 4 + length]
            done += 1
        self.answers += done
        return done


class WSActor:
    def __init__(self, port: int, reactor: str):
        self.sock, _ = ws_open(port, reactor)
        self.reactor = reactor
        self.seq = 0
        self.answers = 0
        self.refused = 0
        self.tail = b""

    def send(self):
        self.seq += 1
        self.sock.send(ws_frame('{"type":"action","reactor":"' + self.reactor + '","ref":' + str(self.seq)
                                + ',"action":' + action_text(self.seq) + "}"))

    def readable(self) -> int:
        data = self.sock.recv(262144)
        if not data:
            raise ConnectionError("the daemon closed a WebSocket")
        window = self.tail + data
        acks = window.count(b'"type":"ack"')
        self.refused += window.count(b'"type":"error"')
        self.tail = window[-16:]
        # a marker that straddled the previous read was counted then: drop it from the tail
        if b'"type":"ack"' in self.tail or b'"type":"error"' in self.tail:
            self.tail = b""
        self.answers += acks
        return acks


def run_actions(binary, workdir, transport: str, clients: int, duration: float, tag: str) -> dict:
    process, port = start_daemon(binary, workdir, f"actions-{transport}-{clients}-{tag}")
    try:
        kind = HTTPActor if transport == "http" else WSActor
        actors = [kind(port, f"doc/ba{tag}{transport}{i}") for i in range(clients)]
        poller = select.epoll()
        by_fd = {}
        for actor in actors:
            poller.register(actor.sock.fileno(), select.EPOLLIN)
            by_fd[actor.sock.fileno()] = actor
            actor.send()

        def spin(until: float):
            while time.monotonic() < until:
                for fd, _ in poller.poll(0.1):
                    actor = by_fd[fd]
                    if actor.readable():
                        actor.send()

        spin(time.monotonic() + 1.0)  # warm-up
        base = sum(a.answers for a in actors)
        meter = Meter(process.pid)
        spin(time.monotonic() + duration)
        answers = sum(a.answers for a in actors) - base
        result = meter.stop()
        refused = sum(a.refused for a in actors)
        if refused:
            raise RuntimeError(f"{refused} actions were refused ({transport})")
        result.update(transport=transport, clients=clients, actions=answers, per_second=answers / result["seconds"],
                      daemon_us_per_action=result["daemon_cpu"] * 1e6 / max(1, answers / result["seconds"]))
        for actor in actors:
            actor.sock.close()
        return result
    finally:
        stop_daemon(process)


# --- fan-out ---------------------------------------------------------------------------


def run_fanout(binary, workdir, transport: str, subscribers: int, window: int, duration: float, tag: str) -> dict:
    process, port = start_daemon(binary, workdir, f"fanout-{transport}-{subscribers}-{tag}")
    reactor = f"doc/bf{tag}{transport}"
    try:
        sender, version = ws_open(port, reactor)
        opener = sse_open if transport == "sse" else ws_open
        last_version = last_sse_version if transport == "sse" else last_ws_version
        socks, held = [], []
        for _ in range(subscribers):
            sock, v = opener(port, reactor)
            socks.append(sock)
            held.append(v)
        tails = [b""] * subscribers
        index_of = {sock.fileno(): i for i, sock in enumerate(socks)}
        poller = select.epoll()
        for sock in socks:
            poller.register(sock.fileno(), select.EPOLLIN)
        poller.register(sender.fileno(), select.EPOLLIN)
        sent = version  # the version the last action sent leads to
        seq = 0
        gate = None  # while stopped: the version every subscriber must hold to go on
        behind = 0   # subscribers below the gate
        resyncs = 0

        def fill():
            nonlocal sent, seq, gate, behind
            frames = []
            while sent - min_needed() < window:
                seq += 1
                sent += 1
                frames.append(ws_frame('{"type":"action","reactor":"' + reactor + '","action":' + action_text(seq) + "}"))
            if frames:
                sender.sendall(b"".join(frames))
            gate = sent - window // 2
            behind = sum(1 for v in held if v < gate)

        floor = [min(held)]

        def min_needed():
            return floor[0]

        def spin(until: float):
            nonlocal behind, gate
            while time.monotonic() < until:
                events = poller.poll(0.1)
                for fd, _ in events:
                    if fd == sender.fileno():
                        if not sender.recv(262144):
                            raise ConnectionError("the sender was closed")
                        continue
                    i = index_of[fd]
                    data = socks[i].recv(262144)
                    if not data:
                        raise ConnectionError(f"subscriber {i} was closed")
                    window_bytes = tails[i] + data
                    tails[i] = window_bytes[-TAIL:]
                    new = last_version(window_bytes)
                    if new is not None and new > held[i]:
                        old = held[i]
                        held[i] = new
                        if old < gate <= new:
                            behind -= 1
                if behind <= 0:
                    floor[0] = gate
                    fill()
                time.sleep(0.00025)

        floor[0] = min(held)
        fill()
        spin(time.monotonic() + 1.0)  # warm-up
        start = list(held)
        meter = Meter(process.pid)
        spin(time.monotonic() + duration)
        result = meter.stop()
        advanced = sum(h - s for h, s in zip(held, start))
        result.update(transport=transport, subscribers=subscribers, window=window, actions=sent - version,
                      per_second=advanced / result["seconds"],
                      actions_per_second=advanced / subscribers / result["seconds"],
                      daemon_us_per_delivery=result["daemon_cpu"] * 1e6 / max(1, advanced / result["seconds"]))
        for sock in socks + [sender]:
            sock.close()
        return result
    finally:
        stop_daemon(process)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", default="1,16")
    parser.add_argument("--subscribers", default="100,500")
    parser.add_argument("--windows", default="64,256")
    parser.add_argument("--quiet-wait", type=float, default=20)
    parser.add_argument("--daemon", type=pathlib.Path, default=ROOT / ".build" / "release" / "reactorhub")
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--skip-actions", action="store_true")
    parser.add_argument("--skip-fanout", action="store_true")
    args = parser.parse_args()
    if not args.daemon.exists():
        sys.exit(f"{args.daemon} is missing: swift build -c release --product reactorhub")
    runs = []
    workdir = pathlib.Path(tempfile.mkdtemp(prefix="bench-api-"))
    print(f"daemon {args.daemon}, logs in {workdir}, load {os.getloadavg()[0]:.2f}", flush=True)
    for round_ in range(args.rounds):
        if not args.skip_actions:
            for clients in [int(c) for c in args.clients.split(",")]:
                for transport in ("http", "ws"):
                    wait_quiet(args.quiet_wait)
                    r = run_actions(args.daemon, workdir, transport, clients, args.duration, f"{round_}x{clients}")
                    runs.append({"part": "actions", "round": round_, **r})
                    print(f"actions {transport:4} clients {clients:4}: {r['per_second']:9.0f}/s, daemon {r['daemon_cpu']:.2f} CPU "
                          f"({r['daemon_us_per_action']:.1f} µs/action), client {r['client_cpu']:.2f}, other {r['other_cpu']:.2f}, "
                          f"load {r['load']:.2f}", flush=True)
        if not args.skip_fanout:
            for subscribers in [int(s) for s in args.subscribers.split(",")]:
                for transport, window in [(t, int(w)) for w in args.windows.split(",") for t in ("ws", "sse")]:
                    wait_quiet(args.quiet_wait)
                    r = run_fanout(args.daemon, workdir, transport, subscribers, window, args.duration, f"{round_}x{subscribers}w{window}")
                    runs.append({"part": "fanout", "round": round_, **r})
                    print(f"fan-out {transport:4} subscribers {subscribers:4} window {window:4}: {r['per_second']:9.0f} deliveries/s "
                          f"({r['actions_per_second']:.0f} versions/s), daemon {r['daemon_cpu']:.2f} CPU "
                          f"({r['daemon_us_per_delivery']:.2f} µs/delivery), client {r['client_cpu']:.2f}, "
                          f"other {r['other_cpu']:.2f}, load {r['load']:.2f}", flush=True)
    print("\nbest of each (the ratio is the second transport over the first):")
    for part, key, pair in (("actions", "clients", ("ws", "http")), ("fanout", "subscribers", ("ws", "sse"))):
        sizes = sorted({r[key] for r in runs if r["part"] == part})
        for size in sizes:
            best = {t: max((r for r in runs if r["part"] == part and r[key] == size and r["transport"] == t),
                           key=lambda r: r["per_second"], default=None) for t in pair}
            if None in best.values():
                continue
            a, b = best[pair[0]], best[pair[1]]
            where = (lambda r: f" (window {r['window']})") if part == "fanout" else (lambda r: "")
            print(f"{part} {key} {size}: {pair[0]} {a['per_second']:.0f}/s{where(a)}, {pair[1]} {b['per_second']:.0f}/s{where(b)}, "
                  f"ratio {b['per_second'] / a['per_second']:.2f}")
    print("\nthe same ratio in each pair of runs taken back to back (median, then every pair):")
    for part, key, pair in (("actions", "clients", ("ws", "http")), ("fanout", "subscribers", ("ws", "sse"))):
        pairs = {}
        for r in runs:
            if r["part"] == part:
                pairs.setdefault((r["round"], r[key], r.get("window")), {})[r["transport"]] = r["per_second"]
        for size in sorted({k[1] for k in pairs}):
            ratios = sorted(p[pair[1]] / p[pair[0]] for k, p in pairs.items() if k[1] == size and len(p) == 2 and p[pair[0]] > 0)
            if ratios:
                print(f"{part} {key} {size}: median {statistics.median(ratios):.2f} ({', '.join(f'{x:.2f}' for x in ratios)})")
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
