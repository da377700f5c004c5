"""Helpers of the HTTP API suites (shared/API.md): requests with Python's `http.client`, an
event-stream reader, and a real webhook receiver.

- `call(daemon, method, path, body=None, headers=None)` sends one request on a fresh
  connection and returns a `Reply` (status, lower-case headers, body bytes, `.json`).
- `Api(daemon)` keeps one keep-alive connection for many requests.
- `EventStream(daemon, path, headers)` opens `GET …/events` and reads its events as they come
  (`next()` waits for the next one; comments are kept in `comments`).
- `HookReceiver(secret)` is an HTTP server on a free loopback port that records every
  delivery, verifies its signature, and can fail the first attempts of an event, answer
  slowly, or never answer; `wait_for(count)` waits until that many deliveries succeeded.
"""
from __future__ import annotations

import hashlib
import hmac
import http.client
import http.server
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    status: int
    headers: dict
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def code(self) -> str | None:
        """`error.code` of an error body."""
        return self.json.get("error", {}).get("code")


def _encode(body: Any) -> bytes | None:
    if body is None or isinstance(body, bytes):
        return body
    return json.dumps(body).encode()


def _send(connection: http.client.HTTPConnection, method: str, path: str, body: Any, headers: dict | None) -> Reply:
    data = _encode(body)
    all_headers = {"Content-Type": "application/json"} if data is not None else {}
    all_headers.update(headers or {})
    connection.request(method, path, body=data, headers=all_headers)
    response = connection.getresponse()
    payload = response.read()
    return Reply(response.status, {name.lower(): value for name, value in response.getheaders()}, payload)


def call(daemon, method: str, path: str, body: Any = None, headers: dict | None = None, timeout: float = 15) -> Reply:
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=timeout)
    try:
        return _send(connection, method, path, body, headers)
    finally:
        connection.close()


class Api:
    """One keep-alive connection to a daemon's API."""

    def __init__(self, daemon, bearer: str | None = None, timeout: float = 15):
        self.connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=timeout)
        self.bearer = bearer

    def request(self, method: str, path: str, body: Any = None, headers: dict | None = None) -> Reply:
        extra = {"Authorization": f"Bearer {self.bearer}"} if self.bearer else {}
        extra.update(headers or {})
        return _send(self.connection, method, path, body, extra)

    def act(self, address: str, action: Any, action_id: str | None = None) -> Reply:
        body = {"action": action} if action_id is None else {"action": action, "id": action_id}
        return self.request("POST", f"/api/v1/reactors/{address}/actions", body)

    def state(self, address: str) -> Reply:
        return self.request("GET", f"/api/v1/reactors/{address}")

    def close(self) -> None:
        self.connection.close()


@dataclass
class Event:
    name: str
    id: str | None
    data: Any


class EventStream:
    """`GET path` kept open, read as Server-Sent Events (the WHATWG parsing rules that
    matter here: `field: value` lines, a blank line ends an event, `:` starts a comment)."""

    def __init__(self, daemon, path: str, headers: dict | None = None, timeout: float = 15):
        self.connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=timeout)
        self.connection.request("GET", path, headers={"Accept": "text/event-stream", **(headers or {})})
        self.sock = self.connection.sock  # http.client lets go of it: a stream's end is its close
        self.response = self.connection.getresponse()
        self.status = self.response.status
        self.headers = {name.lower(): value for name, value in self.response.getheaders()}
        if self.status == 200:
            assert self.headers["content-type"] == "text/event-stream", self.headers
        self.comments: list[str] = []
        self.events: list[Event] = []

    def body(self) -> bytes:
        """The whole body of a refusal (not a stream)."""
        return self.response.read()

    def set_timeout(self, seconds: float) -> None:
        self.sock.settimeout(seconds)

    def next(self, timeout: float = 15) -> Event:
        """The next event; comments met on the way go to `comments`. Raises TimeoutError, or
        EOFError when the stream ended."""
        self.set_timeout(timeout)
        fields: dict[str, str] = {}
        while True:
            try:
                raw = self.response.fp.readline()
            except socket.timeout as error:
                raise TimeoutError("no event within the timeout") from error
            if not raw:
                raise EOFError("the stream ended")
            line = raw.decode().rstrip("\n").rstrip("\r")
            if line == "":
                if fields:
                    event = Event(fields.get("event", "message"), fields.get("id"), json.loads(fields["data"]) if "data" in fields else None)
                    self.events.append(event)
                    return event
                continue
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value

    def comment(self, timeout: float = 15) -> str:
        """Waits for the next comment line (events on the way are kept in `events`)."""
        seen = len(self.comments)
        deadline = time.monotonic() + timeout
        while len(self.comments) == seen:
            self.set_timeout(max(0.05, deadline - time.monotonic()))
            try:
                raw = self.response.fp.readline()
            except socket.timeout as error:
                raise TimeoutError("no comment within the timeout") from error
            if not raw:
                raise EOFError("the stream ended")
            line = raw.decode().rstrip("\r\n")
            if line.startswith(":"):
                self.comments.append(line[1:].strip())
        return self.comments[-1]

    def until(self, predicate, timeout: float = 15) -> list[Event]:
        """Events up to and including the first that satisfies `predicate`."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            event = self.next(max(0.05, deadline - time.monotonic()))
            seen.append(event)
            if predicate(event):
                return seen

    def ended(self, timeout: float = 15) -> bool:
        """Reads until the server ends the stream; True when it did within the timeout."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.next(max(0.05, deadline - time.monotonic()))
        except EOFError:
            return True
        except (TimeoutError, ConnectionError):
            return False
        return False

    def close(self) -> None:
        self.response.close()
        self.sock.close()
        self.connection.close()


# -- webhooks ---------------------------------------------------------------------------

def signature(secret: str, timestamp: str, body: bytes) -> str:
    """What `X-ReactorHub-Signature` must be (API.md "Webhooks")."""
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


@dataclass
class Delivery:
    id: str
    timestamp: str
    signature: str
    body: bytes
    answered: int
    verified: bool
    received_at: float

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class HookReceiver:
    """A webhook receiver on 127.0.0.1. `fail_first[id_predicate]` style rules are set
    through `failures`: each event's first `failures` attempts are answered 503. With
    `never_answer`, requests are read and never answered (the connection is held)."""
    secret: str
    failures: int = 0
    never_answer: bool = False
    deliveries: list[Delivery] = field(default_factory=list)

    def __post_init__(self):
        self.condition = threading.Condition()
        self.attempts: dict[str, int] = {}
        self.release = threading.Event()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                event_id = self.headers.get("X-ReactorHub-Id", "")
                timestamp = self.headers.get("X-ReactorHub-Timestamp", "")
                signed = self.headers.get("X-ReactorHub-Signature", "")
                with receiver.condition:
                    attempt = receiver.attempts.get(event_id, 0) + 1
                    receiver.attempts[event_id] = attempt
                    receiver.condition.notify_all()
                if receiver.never_answer:
                    receiver.release.wait(120)
                    return
                status = 503 if attempt <= receiver.failures else 200
                verified = hmac.compare_digest(signed, signature(receiver.secret, timestamp, body))
                with receiver.condition:
                    receiver.deliveries.append(Delivery(event_id, timestamp, signed, body, status, verified, time.time()))
                    receiver.condition.notify_all()
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hooks"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def delivered(self) -> list[Delivery]:
        with self.condition:
            return [each for each in self.deliveries if each.answered == 200]

    def wait_for(self, count: int, timeout: float = 30, predicate=lambda delivery: True) -> list[Delivery]:
        """Waits until `count` deliveries satisfying `predicate` were answered 200."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                done = [each for each in self.deliveries if each.answered == 200 and predicate(each)]
                if len(done) >= count:
                    return done
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"{len(done)} of {count} deliveries within {timeout} s: {[d.json for d in done]}")
                self.condition.wait(remaining)

    def wait_for_attempts(self, count: int, timeout: float = 30) -> None:
        """Waits until `count` requests (of any outcome) arrived."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while sum(self.attempts.values()) < count:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"{sum(self.attempts.values())} of {count} attempts within {timeout} s")
                self.condition.wait(remaining)

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
