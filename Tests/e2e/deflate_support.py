"""A raw WebSocket client that shows what the server put on the wire: each frame's FIN,
RSV1 and opcode, and its payload as sent (compressed or not), with the upgrade's
`Sec-WebSocket-Extensions` answer. Its messages can be sent compressed (RSV1) too.

Inflating and deflating here is Python's zlib on raw DEFLATE streams (RFC 7692 section
7.2): independent of the server's code."""
from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time
import zlib

MASK = b"\x37\xfa\x21\x3d"
TAIL = b"\x00\x00\xff\xff"


def inflate(payload: bytes, window_bits: int = 15) -> bytes:
    """A compressed message's payload inflated as RFC 7692 section 7.2.2 says: the tail
    put back, a fresh stream (the server takes no context over)."""
    inflater = zlib.decompressobj(-window_bits)
    return inflater.decompress(payload + TAIL) + inflater.flush()


def deflate(message: bytes, window_bits: int = 15) -> bytes:
    """A message compressed as a client without context takeover sends it."""
    compressor = zlib.compressobj(6, zlib.DEFLATED, -window_bits)
    out = compressor.compress(message) + compressor.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(TAIL)
    return out[:-4]


def frame(payload: bytes, opcode: int = 0x1, fin: bool = True, rsv1: bool = False) -> bytes:
    """One masked client frame."""
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", first, 0x80 | n)
    elif n < 65536:
        header = struct.pack("!BBH", first, 0x80 | 126, n)
    else:
        header = struct.pack("!BBQ", first, 0x80 | 127, n)
    masked = bytes(byte ^ MASK[index % 4] for index, byte in enumerate(payload))
    return header + MASK + masked


class Frame:
    def __init__(self, first: int, payload: bytes):
        self.fin = bool(first & 0x80)
        self.rsv1 = bool(first & 0x40)
        self.opcode = first & 0x0F
        self.payload = payload

    def text(self) -> str:
        """The message's text: inflated when RSV1 is set."""
        return (inflate(self.payload) if self.rsv1 else self.payload).decode()

    def json(self) -> dict:
        return json.loads(self.text())


class WireClient:
    """A blocking raw client of `/ws` (or `path`) that offers `extensions` (None: no header)."""

    def __init__(self, port: int, extensions: str | None = None, path: str = "/ws", timeout: float = 10):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        offer = f"Sec-WebSocket-Extensions: {extensions}\r\n" if extensions is not None else ""
        self.sock.sendall((
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{offer}\r\n"
        ).encode())
        raw = b""
        while b"\r\n\r\n" not in raw:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError(f"closed during the handshake: {raw!r}")
            raw += chunk
        head, self.buffer = raw.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        self.status = lines[0]
        assert " 101 " in self.status + " ", self.status
        self.headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            self.headers.setdefault(name.strip().lower(), []).append(value.strip())
        self.wire_bytes = 0

    @property
    def extensions(self) -> str | None:
        values = self.headers.get("sec-websocket-extensions")
        return ", ".join(values) if values else None

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_json(self, message: dict, compressed: bool = False) -> None:
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
        self.send(frame(deflate(text), rsv1=True) if compressed else frame(text))

    def _read(self, count: int, deadline: float) -> bytes:
        while len(self.buffer) < count:
            self.sock.settimeout(max(deadline - time.monotonic(), 0.01))
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the stream")
            self.wire_bytes += len(chunk)
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def next_frame(self, timeout: float = 10) -> Frame:
        deadline = time.monotonic() + timeout
        first, second = self._read(2, deadline)
        length = second & 0x7F
        if length == 126:
            length = struct.unpack("!H", self._read(2, deadline))[0]
        elif length == 127:
            length = struct.unpack("!Q", self._read(8, deadline))[0]
        return Frame(first, self._read(length, deadline))

    def next_message(self, timeout: float = 10) -> Frame:
        """The next text frame (pings answered, other control frames skipped)."""
        while True:
            got = self.next_frame(timeout)
            if got.opcode == 0x9:
                self.send(frame(got.payload, opcode=0xA))
                continue
            if got.opcode == 0x8:
                raise ConnectionError(f"closed: {close_status(got.payload)}")
            return got

    def until(self, predicate, timeout: float = 10) -> Frame:
        """Reads messages until one whose JSON satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        while True:
            got = self.next_message(max(deadline - time.monotonic(), 0.01))
            if predicate(got.json()):
                return got

    def close_code(self, timeout: float = 10) -> int | None:
        """Reads until the server's close frame; its status code."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                got = self.next_frame(max(deadline - time.monotonic(), 0.01))
                if got.opcode == 0x8:
                    return close_status(got.payload)[0]
        except ConnectionError:
            return None

    def close(self) -> None:
        self.sock.close()


def close_status(payload: bytes) -> tuple[int, str]:
    if len(payload) < 2:
        return 1005, ""
    return struct.unpack("!H", payload[:2])[0], payload[2:].decode(errors="replace")
