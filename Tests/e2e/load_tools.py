"""Load generation on raw sockets, for the attack suites and `scripts/soak.py`.

asyncio and the websockets package cost a task and a frame encode per message; the
attacks need tens of thousands of messages a second from one Python process on a busy
2-core machine. So here: blocking handshakes, then non-blocking sockets driven by one
`selectors` loop, client frames encoded (and masked) once and sent many times, and a
server-frame parser that can skip payloads it does not need.

Also: the daemon's CPU time and descriptors from /proc, and percentiles.
"""
from __future__ import annotations

import base64
import collections
import errno
import json
import os
import selectors
import socket
import struct
import time
from typing import Any, Callable, Iterable

SUBPROTOCOL = "reactorhub.v1"
MASK = b"\x5a\x17\xc3\x9e"
CLOCK_TICK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------
# Frames
# ---------------------------------------------------------------------------------------

def _mask(payload: bytes, key: bytes = MASK) -> bytes:
    if not payload:
        return b""
    n = len(payload)
    keystream = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(keystream, "big")).to_bytes(n, "big")


def client_frame(payload: bytes | str | dict, opcode: int = 0x1) -> bytes:
    """One masked client frame (FIN set); a dict is sent as compact JSON text."""
    if isinstance(payload, dict):
        payload = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    if isinstance(payload, str):
        payload = payload.encode()
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return header + MASK + _mask(payload)


def close_frame(code: int = 1000) -> bytes:
    return client_frame(struct.pack("!H", code), opcode=0x8)


class FrameParser:
    """Incremental parser of server frames (unmasked, RFC 6455). `keep` decides per opcode
    whether payloads are returned (text frames can be skipped to save work); close frames
    are always parsed: `close_code` is the status of the first close frame."""

    def __init__(self, keep_text: bool = True):
        self.keep_text = keep_text
        self._buffer = bytearray()
        self._offset = 0
        self.frames = 0
        self.text_bytes = 0
        self.close_code: int | None = None
        self.close_reason = ""

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        self._buffer += data
        out: list[tuple[int, bytes]] = []
        buffer, offset = self._buffer, self._offset
        end = len(buffer)
        while end - offset >= 2:
            b0, b1 = buffer[offset], buffer[offset + 1]
            length = b1 & 0x7F
            head = 2
            if length == 126:
                if end - offset < 4:
                    break
                length = int.from_bytes(buffer[offset + 2:offset + 4], "big")
                head = 4
            elif length == 127:
                if end - offset < 10:
                    break
                length = int.from_bytes(buffer[offset + 2:offset + 10], "big")
                head = 10
            if end - offset < head + length:
                break
            opcode = b0 & 0x0F
            start = offset + head
            self.frames += 1
            if opcode == 0x8:
                payload = bytes(buffer[start:start + length])
                if self.close_code is None:
                    self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                    self.close_reason = payload[2:].decode(errors="replace")
                out.append((opcode, payload))
            elif opcode == 0x1 or opcode == 0x0:
                self.text_bytes += length
                if self.keep_text:
                    out.append((opcode, bytes(buffer[start:start + length])))
            else:
                out.append((opcode, bytes(buffer[start:start + length])))
            offset = start + length
        if offset > 65536 and offset * 2 > end:
            del buffer[:offset]
            offset = 0
        self._offset = offset
        return out


# ---------------------------------------------------------------------------------------
# Connections
# ---------------------------------------------------------------------------------------

class HandshakeError(Exception):
    def __init__(self, status: str, raw: bytes):
        super().__init__(status)
        self.status = status
        self.raw = raw


def open_socket(port: int, host: str = "127.0.0.1", source: str | None = None,
                rcvbuf: int | None = None, timeout: float = 10) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if source is not None:
        sock.bind((source, 0))
    sock.settimeout(timeout)
    sock.connect((host, port))
    return sock


class RawClient:
    """One WebSocket connection on a raw socket: `hello` read during `open()`, then
    non-blocking. Writes go through `queue()` + `flush()` (what the socket does not take
    stays in `pending`); reads through `pump()`, which feeds the parser."""

    def __init__(self, port: int, *, host: str = "127.0.0.1", source: str | None = None,
                 rcvbuf: int | None = None, keep_text: bool = True, name: str = ""):
        self.port, self.host, self.source, self.rcvbuf = port, host, source, rcvbuf
        self.name = name
        self.parser = FrameParser(keep_text=keep_text)
        self.sock: socket.socket | None = None
        self.pending = bytearray()
        self.sent_bytes = 0
        self.received_bytes = 0
        self.eof = False
        self.error: str | None = None
        self.hello: dict | None = None
        self.unread: collections.deque[dict] = collections.deque()  # parsed, not yet returned

    def open(self, timeout: float = 10, read_hello: bool = True) -> "RawClient":
        sock = open_socket(self.port, self.host, self.source, self.rcvbuf, timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /ws HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Protocol: {SUBPROTOCOL}\r\n\r\n"
        )
        sock.sendall(request.encode())
        raw = b""
        while b"\r\n\r\n" not in raw:
            chunk = sock.recv(65536)
            if not chunk:
                sock.close()
                raise HandshakeError("connection closed during the handshake", raw)
            raw += chunk
        head, rest = raw.split(b"\r\n\r\n", 1)
        status = head.split(b"\r\n", 1)[0].decode(errors="replace")
        if " 101 " not in status + " ":
            sock.close()
            raise HandshakeError(status, raw)
        self.sock = sock
        keep, self.parser.keep_text = self.parser.keep_text, True
        frames = self.parser.feed(rest) if rest else []
        if read_hello:
            deadline = time.monotonic() + timeout
            while not frames:
                sock.settimeout(max(deadline - time.monotonic(), 0.01))
                chunk = sock.recv(65536)
                if not chunk:
                    raise HandshakeError("closed before hello", raw)
                frames = self.parser.feed(chunk)
            self.hello = json.loads(frames[0][1])
        self.parser.keep_text = keep
        sock.setblocking(False)
        return self

    def fileno(self) -> int:
        return self.sock.fileno()

    def queue(self, data: bytes) -> None:
        self.pending += data

    def flush(self) -> bool:
        """Writes what the socket takes; True when nothing is left."""
        while self.pending and self.sock is not None:
            try:
                n = self.sock.send(self.pending)
            except (BlockingIOError, InterruptedError):
                return False
            except OSError as error:
                self.error = self.error or f"send: {error}"
                self.pending.clear()
                return True
            self.sent_bytes += n
            del self.pending[:n]
        return not self.pending

    def pump(self, limit: int = 1 << 20) -> list[tuple[int, bytes]]:
        """Reads what is there (up to `limit` bytes) and returns the complete frames."""
        out: list[tuple[int, bytes]] = []
        if self.sock is None or self.eof:
            return out
        read = 0
        while read < limit:
            try:
                chunk = self.sock.recv(262144)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as error:
                self.error = self.error or f"recv: {error}"
                self.eof = True
                break
            if not chunk:
                self.eof = True
                break
            read += len(chunk)
            self.received_bytes += len(chunk)
            for frame in self.parser.feed(chunk):
                if frame[0] == 0x9:      # the server's keepalive ping
                    self.queue(client_frame(frame[1], opcode=0xA))
                    self.flush()
                else:
                    out.append(frame)
        return out

    def send_now(self, data: bytes, timeout: float = 10) -> None:
        """Queues and writes `data`, waiting for the socket (tests' small messages)."""
        self.queue(data)
        deadline = time.monotonic() + timeout
        while not self.flush():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}: could not write {len(self.pending)} bytes")
            time.sleep(0.002)

    def read_until(self, predicate: Callable[[dict], bool], timeout: float = 20) -> list[dict]:
        """Reads JSON text frames until one satisfies `predicate`; returns those read up to
        it (the frames after it stay for the next call)."""
        got: list[dict] = []
        deadline = time.monotonic() + timeout
        while True:
            while self.unread:
                message = self.unread.popleft()
                got.append(message)
                if predicate(message):
                    return got
            for opcode, payload in self.pump():
                if opcode == 0x1:
                    self.unread.append(json.loads(payload))
            if self.unread:
                continue
            if self.eof or self.parser.close_code is not None:
                raise ConnectionError(f"{self.name}: closed ({self.parser.close_code}) while waiting; got {got[-3:]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.name}: timed out; last {got[-3:]}")
            wait_readable([self], min(0.05, max(deadline - time.monotonic(), 0.001)))

    def request(self, message: dict, timeout: float = 20) -> dict:
        """Sends `message` (with its `ref`) and returns the reply carrying that ref."""
        self.send_now(client_frame(message))
        ref = message["ref"]
        return self.read_until(lambda m: m.get("ref") == ref, timeout)[-1]

    def wait_closed(self, timeout: float = 20) -> int | None:
        """Reads (and discards) until the server's close frame or the end of the stream;
        returns the close code (None when the stream ended without one)."""
        deadline = time.monotonic() + timeout
        while self.parser.close_code is None and not self.eof and time.monotonic() < deadline:
            if not self.pump():
                wait_readable([self], 0.05)
        return self.parser.close_code

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None


def open_many(port: int, sources: list[str], count: int, timeout: float = 20,
              host: str = "127.0.0.1") -> tuple[list[RawClient], list[str], list[socket.socket]]:
    """Opens `count` WebSocket connections at once (round-robin over `sources`): every
    TCP connect first (the kernel completes them whether or not the daemon accepts),
    then one selector loop for the upgrades. Returns (the open clients, hello read; how
    each refused one ended; the sockets still without an answer after `timeout`)."""
    request = ("GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: reactorhub.v1\r\n\r\n")
    waiting: dict[socket.socket, tuple[RawClient, bytearray]] = {}
    refused: list[str] = []
    for index in range(count):
        client = RawClient(port, host=host, source=sources[index % len(sources)])
        try:
            sock = open_socket(port, host, client.source, None, timeout)
            sock.sendall(request.format(host=host, port=port, key=base64.b64encode(os.urandom(16)).decode()).encode())
        except OSError as error:
            refused.append(f"connect: {error}")
            continue
        sock.setblocking(False)
        waiting[sock] = (client, bytearray())
    opened: list[RawClient] = []
    selector = selectors.DefaultSelector()
    for sock in waiting:
        selector.register(sock, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while waiting and time.monotonic() < deadline:
        for key, _ in selector.select(0.1):
            sock = key.fileobj
            client, raw = waiting[sock]
            try:
                chunk = sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError as error:
                chunk, ending = b"", f"reset ({error.errno})"
            else:
                ending = "closed"
            if not chunk:
                if client.sock is not None:
                    ending += " after the upgrade"
                selector.unregister(sock)
                sock.close()
                del waiting[sock]
                refused.append(ending)
                continue
            if client.sock is None:     # still in the HTTP response
                raw += chunk
                if b"\r\n\r\n" not in raw:
                    continue
                head, chunk = bytes(raw).split(b"\r\n\r\n", 1)
                if b" 101 " not in head.split(b"\r\n", 1)[0] + b" ":
                    selector.unregister(sock)
                    sock.close()
                    del waiting[sock]
                    refused.append(head.split(b"\r\n", 1)[0].decode(errors="replace"))
                    continue
                client.sock = sock
            frames = client.parser.feed(chunk)
            if frames:
                client.hello = json.loads(frames[0][1])
                selector.unregister(sock)
                del waiting[sock]
                opened.append(client)
    selector.close()
    return opened, refused, list(waiting)


def wait_readable(clients: Iterable[Any], timeout: float) -> None:
    selector = selectors.DefaultSelector()
    try:
        for client in clients:
            if getattr(client, "sock", None) is not None:
                selector.register(client.sock, selectors.EVENT_READ)
        if selector.get_map():
            selector.select(timeout)
        else:
            time.sleep(timeout)
    finally:
        selector.close()


def http_get(port: int, path: str, host: str = "127.0.0.1", source: str | None = None,
             timeout: float = 5) -> tuple[int, bytes]:
    """A plain HTTP/1.1 GET; returns (status, body), or raises OSError."""
    sock = open_socket(port, host, source, None, timeout)
    try:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\n\r\n".encode())
        raw = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            raw += chunk
            if b"\r\n\r\n" in raw:
                head, body = raw.split(b"\r\n\r\n", 1)
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), None)
                if length is not None and len(body) >= length:
                    break
        if not raw:
            raise ConnectionError("no response")
        status = int(raw.split(b" ", 2)[1])
        return status, raw.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in raw else b""
    finally:
        sock.close()


# ---------------------------------------------------------------------------------------
# The daemon from /proc
# ---------------------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` (all its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICK


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def cpu_share(pid: int, seconds: float) -> float:
    """The CPU the process used over the next `seconds`, as a share of one core."""
    start_cpu, start = cpu_seconds(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_seconds(pid) - start_cpu) / (time.monotonic() - start)


def wait_cpu_quiet(pid: int, below: float, window: float = 2.0, timeout: float = 60) -> tuple[bool, list[float]]:
    """Samples the process's CPU share over consecutive windows until one is below
    `below` (or `timeout`); returns (reached, the shares seen)."""
    shares: list[float] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shares.append(cpu_share(pid, window))
        if shares[-1] < below:
            return True, shares
    return False, shares


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def is_connection_refused(error: BaseException) -> bool:
    return isinstance(error, (ConnectionError, HandshakeError, socket.timeout)) or (
        isinstance(error, OSError) and error.errno in (errno.ECONNRESET, errno.ECONNREFUSED, errno.EPIPE))


# ---------------------------------------------------------------------------------------
# A flood of actions, in a process of its own
# ---------------------------------------------------------------------------------------

def action_block(reactor: str, key: str, values: int = 256, pad: int = 0) -> tuple[bytes, int]:
    """`values` pre-encoded `set` actions of `reactor` (no ref: no ack) that each change
    `/key` (fixed-width values, so every frame has the same length); returns the frames
    concatenated and the length of one."""
    frames = [client_frame({"type": "action", "reactor": reactor,
                            "action": {"type": "set", "path": f"/{key}", "value": f"{v:06d}{'x' * pad}"}})
              for v in range(values)]
    assert len({len(f) for f in frames}) == 1
    return b"".join(frames), len(frames[0])


class FloodSpec:
    """What a flood does: `connections` sockets (round-robin over `sources`), each joined
    to one of `docs` and sending `set` actions at `rate` per second each (None: as fast as
    the socket takes them), reading and discarding what the server sends."""

    def __init__(self, port: int, connections: int, docs: list[str], rate: float | None,
                 sources: list[str] | None = None, rcvbuf: int | None = None, pad: int = 0,
                 name: str = "flood", read: bool = True):
        self.port, self.connections, self.docs, self.rate = port, connections, docs, rate
        self.sources = sources or ["127.0.0.1"]
        self.rcvbuf, self.pad, self.name, self.read = rcvbuf, pad, name, read


def _flood_child(spec: FloodSpec, pipe) -> None:
    """Runs in the child: opens, then floods until told `stop` (keep the sockets, read
    on), `close` (close frames, then close) or `await-close` (read until each socket gets
    the server's close frame or its end); replies with figures."""
    clients: list[RawClient] = []
    try:
        for index in range(spec.connections):
            client = RawClient(spec.port, source=spec.sources[index % len(spec.sources)],
                               rcvbuf=spec.rcvbuf, keep_text=False, name=f"{spec.name}{index}")
            client.open(timeout=30)
            doc = spec.docs[index % len(spec.docs)]
            client.queue(client_frame({"type": "join", "reactor": doc}))
            client.flush()
            block, size = action_block(doc, f"{spec.name}{index}", pad=spec.pad)
            client.block, client.size, client.cursor = block + block, size, 0
            client.frames_in_block = len(block) // size
            client.due, client.actions = 0.0, 0
            clients.append(client)
    except Exception as error:  # report, do not hang the parent
        pipe.send({"error": f"opening {len(clients)}: {error!r}"})
        for client in clients:
            client.close()
        return
    pipe.send({"opened": len(clients)})
    selector = selectors.DefaultSelector()
    for client in clients:
        selector.register(client.sock, selectors.EVENT_READ, client)
    sending = True
    last = time.monotonic()
    tick = 0.02
    mode = None
    while True:
        if pipe.poll():
            mode = pipe.recv()
            if mode == "stop":
                # What is queued still goes (a frame cut short would corrupt the stream).
                sending = False
                pipe.send({"stopped": True})
                mode = None
            elif mode in ("close", "await-close", "exit"):
                break
        now = time.monotonic()
        if sending and now - last >= tick:
            elapsed, last = now - last, now
            for client in clients:
                if client.sock is None or client.eof:
                    continue
                if spec.rate is None:
                    want = 64 if len(client.pending) < 32 * client.size else 0
                else:
                    client.due = min(client.due + spec.rate * elapsed, spec.rate)  # a burst of 1 s at most
                    want = int(client.due) if len(client.pending) < 4 * client.size else 0
                    client.due -= want
                if want:
                    start = client.cursor * client.size
                    client.queue(client.block[start:start + want * client.size])
                    client.cursor = (client.cursor + want) % client.frames_in_block
                    client.actions += want
                client.flush()
        if not sending:
            for client in clients:
                if client.pending:
                    client.flush()
        for key, _ in selector.select(tick if sending else 0.05):
            if spec.read:
                key.data.pump(limit=1 << 18)
    figures: dict[str, Any] = {}
    if mode == "close":
        for client in clients:
            try:  # a close frame if the socket takes it now; the server may not be reading
                if not client.pending:
                    client.sock.send(close_frame(1000))
            except OSError:
                pass
            client.close()
    elif mode == "await-close":
        deadline = time.monotonic() + 60
        open_ = [c for c in clients if c.sock is not None]
        for client in open_:
            client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        while open_ and time.monotonic() < deadline:
            for key, _ in selector.select(0.1):
                key.data.pump()
            open_ = [c for c in open_ if c.parser.close_code is None and not c.eof]
        codes: dict[str, int] = {}
        for client in clients:
            # A close frame's code; else "reset" (the server closed with data of ours unread,
            # so TCP reset the stream, and what was in flight to us, the close frame
            # included, was lost), "eof" or "open".
            if client.parser.close_code is not None:
                code = str(client.parser.close_code)
            elif client.error and "104" in client.error:
                code = "reset"
            else:
                code = "eof" if client.eof else "open"
            codes[code] = codes.get(code, 0) + 1
        figures["closeCodes"] = codes
        for client in clients:
            client.close()
    figures.update({
        "connections": len(clients),
        "actionsQueued": sum(c.actions for c in clients),
        "bytesSent": sum(c.sent_bytes for c in clients),
        "bytesReceived": sum(c.received_bytes for c in clients),
        "framesReceived": sum(c.parser.frames for c in clients),
        "errors": sorted({c.error for c in clients if c.error})[:5],
    })
    pipe.send(figures)


class Flood:
    """A `FloodSpec` run in a process of its own (its sockets and its CPU are its own, so
    the test process measures latency without sharing a GIL with the load). `spawn` for a
    parent that runs threads (a fork copies their locks in whatever state they are)."""

    def __init__(self, spec: FloodSpec, start_method: str = "fork"):
        import multiprocessing
        context = multiprocessing.get_context(start_method)
        self.spec = spec
        self._pipe, child = context.Pipe()
        self.process = context.Process(target=_flood_child, args=(spec, child), daemon=True)

    def start(self, timeout: float = 60) -> "Flood":
        self.process.start()
        if not self._pipe.poll(timeout):
            raise TimeoutError(f"{self.spec.name}: connections not opened in {timeout} s")
        message = self._pipe.recv()
        if "error" in message:
            raise RuntimeError(f"{self.spec.name}: {message['error']}")
        return self

    def stop_sending(self, timeout: float = 30) -> None:
        self._pipe.send("stop")
        if self._pipe.poll(timeout):
            self._pipe.recv()

    def finish(self, how: str = "close", timeout: float = 90) -> dict:
        """`close` (the clients leave) or `await-close` (read until the server closes)."""
        self._pipe.send(how)
        figures = self._pipe.recv() if self._pipe.poll(timeout) else {"error": "no figures"}
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()
        return figures

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
            self.process.join(5)


# ---------------------------------------------------------------------------------------
# Configurations an older build accepts
# ---------------------------------------------------------------------------------------

_KNOWN: dict[str, set] = {}


def known_configuration(binary: str) -> set[str]:
    """The configuration keys `binary` knows (dotted), from `--print-config-reference`;
    empty when that build has no such flag."""
    if binary not in _KNOWN:
        import re
        import subprocess
        printed = subprocess.run([binary, "--print-config-reference"], capture_output=True, text=True, timeout=60)
        _KNOWN[binary] = set(re.findall(r"^\| `([A-Za-z0-9_.]+)`", printed.stdout, re.M)) if printed.returncode == 0 else set()
    return _KNOWN[binary]


def without_unknown_keys(config: dict, known: set[str], prefix: str = "") -> dict:
    """`config` without the keys `known` does not list, so that the attack suites can run
    against a build from before a key existed (REACTORHUB_BINARY) and show what that build
    does, instead of stopping at its refusal of the file. Unchanged when `known` is empty."""
    if not known:
        return config
    kept = {}
    for key, value in config.items():
        path = prefix + key
        if isinstance(value, dict) and any(k.startswith(path + ".") for k in known):
            kept[key] = without_unknown_keys(value, known, path + ".")
        elif path in known:
            kept[key] = value
    return kept


def is_closed(sock):
    """Whether the daemon closed `sock` (end of stream or reset); reads what is there."""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return True
    except (BlockingIOError, InterruptedError):
        return False
    except OSError as error:
        return error.errno in (errno.ECONNRESET, errno.EPIPE)
