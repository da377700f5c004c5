"""The event stream of shared/API.md ("The event stream") read with Python's http.client:
events named `snapshot`, `patch`, `pulse`, `presence` with `id: EPOCH:VERSION` and the
WebSocket message as data; `Last-Event-ID` resumes like a WebSocket resume (also after a
restart on SQLite); keepalive comments; a stream is a connection for every limit and a
subscriber for the slow-reader policy."""
import json
import re
import socket
import time

import pytest

from api_support import Api, EventStream, call
from auth_support import Client
from conftest import base_config, wait_for


def events_path(address: str) -> str:
    return f"/api/v1/reactors/{address}/events"


@pytest.fixture
def hub(daemon_factory):
    return daemon_factory(base_config(reactors={"counter": {"delayMs": 50}}, history={"patches": 8, "maxBytes": 1048576}))


def test_a_stream_starts_with_a_snapshot_then_carries_what_a_websocket_subscriber_gets(hub):
    watcher = Client(hub.url)
    stream = EventStream(hub, events_path("counter/live"))
    try:
        snapshot = watcher.join("counter/live")
        assert stream.status == 200
        assert stream.headers["cache-control"] == "no-store"
        first = stream.next()
        assert first.name == "snapshot"
        assert first.id == f"{snapshot['epoch']}:0"
        assert first.data == {k: v for k, v in snapshot.items() if k != "ref"}
        assert call(hub, "POST", "/api/v1/reactors/counter/live/actions", {"action": "increase"}).status == 200
        events = stream.until(lambda event: event.name == "pulse")
        frames = [watcher.next_unsolicited(lambda frame: frame["type"] in ("patch", "pulse")) for _ in events]
        assert [event.data for event in events] == frames
        assert [(event.name, event.id) for event in events] == [
            ("patch", f"{snapshot['epoch']}:1"), ("patch", f"{snapshot['epoch']}:2"), ("patch", f"{snapshot['epoch']}:3"),
            ("pulse", f"{snapshot['epoch']}:3"),
        ]
        assert events[-1].data["value"] == "increased!"
    finally:
        stream.close()
        watcher.close()


def test_presence_of_websocket_connections_arrives_as_events(hub):
    stream = EventStream(hub, events_path("doc/room"))
    member = Client(hub.url)
    try:
        epoch = stream.next().data["epoch"]
        member.join("doc/room")
        assert member.request({"type": "presence", "reactor": "doc/room", "state": {"cursor": 3}})["type"] == "ack"
        event = stream.next()
        assert event.name == "presence" and event.id == f"{epoch}:0"
        assert event.data == {"type": "presence", "reactor": "doc/room", "joins": {member.hello["session"]: {"user": None, "state": {"cursor": 3}}}, "leaves": []}
        member.close()
        left = stream.next()
        assert (left.name, left.data["leaves"]) == ("presence", [member.hello["session"]])
    finally:
        stream.close()
        member.close()


def test_last_event_id_resumes_with_the_missed_patches_only(hub):
    api = Api(hub)
    try:
        first = EventStream(hub, events_path("todo/resume"))
        snapshot = first.next()
        epoch = snapshot.data["epoch"]
        api.act("todo/resume", {"type": "add", "title": "seen"})
        seen = first.next()
        assert seen.id == f"{epoch}:1"
        first.close()
        for title in ["missed 1", "missed 2"]:
            api.act("todo/resume", {"type": "add", "title": title})
        resumed = EventStream(hub, events_path("todo/resume"), headers={"Last-Event-ID": seen.id})
        missed = [resumed.next(), resumed.next()]
        assert [(event.name, event.id) for event in missed] == [("patch", f"{epoch}:2"), ("patch", f"{epoch}:3")]
        assert [event.data["patch"][0]["value"]["title"] for event in missed] == ["missed 1", "missed 2"]
        api.act("todo/resume", {"type": "add", "title": "live"})
        assert resumed.next().id == f"{epoch}:4"
        resumed.close()
        for unusable in ["another-epoch:1", f"{epoch}:99", "garbage", f"{epoch}:-1"]:
            fresh = EventStream(hub, events_path("todo/resume"), headers={"Last-Event-ID": unusable})
            event = fresh.next()
            assert (event.name, event.id, event.data["version"]) == ("snapshot", f"{epoch}:4", 4), unusable
            fresh.close()
        for n in range(10):  # history.patches is 8: version 1 is gone
            api.act("todo/resume", {"type": "add", "title": f"more {n}"})
        too_old = EventStream(hub, events_path("todo/resume"), headers={"Last-Event-ID": f"{epoch}:1"})
        assert too_old.next().name == "snapshot"
        too_old.close()
    finally:
        api.close()


def test_a_quiet_stream_gets_keepalive_comments(daemon_factory):
    hub = daemon_factory(base_config(keepalive={"pingSeconds": 1, "timeoutSeconds": 2}))
    stream = EventStream(hub, events_path("todo/quiet"))
    try:
        assert stream.next().name == "snapshot"
        assert stream.comment(timeout=10) == "keepalive"
        assert stream.comment(timeout=10) == "keepalive"
        assert stream.events[-1].name == "snapshot"  # nothing else came
    finally:
        stream.close()


def connections(hub) -> int:
    text = call(hub, "GET", "/metrics").body.decode()
    return int(re.search(r"^reactorhub_connections (\d+)$", text, re.M).group(1))


def test_a_stream_is_a_connection_for_max_connections(daemon_factory):
    hub = daemon_factory(base_config(limits={"maxConnections": 2}))
    streams = [EventStream(hub, events_path("todo/capped")) for _ in range(2)]
    try:
        for stream in streams:
            assert stream.next().name == "snapshot"
        assert connections(hub) == 2
        refused = EventStream(hub, events_path("todo/capped"))
        assert refused.status == 503 and int(refused.headers["retry-after"]) >= 1
        assert json.loads(refused.body())["error"]["code"] == "overloaded"
        with pytest.raises(Exception):
            Client(hub.url)  # the WebSocket upgrade is refused (503) as well
        streams.pop().close()
        assert wait_for(lambda: connections(hub) == 1, timeout=5)
        again = EventStream(hub, events_path("todo/capped"))
        assert again.status == 200 and again.next().name == "snapshot"
        streams.append(again)
    finally:
        for stream in streams:
            stream.close()


def test_a_stream_that_ends_is_no_longer_a_subscriber(hub):
    stream = EventStream(hub, events_path("todo/leaving"))
    assert stream.next().name == "snapshot"
    assert connections(hub) == 1
    stream.close()
    assert wait_for(lambda: connections(hub) == 0, timeout=5)


SLOW_QUEUE = 64 * 1024
PAD = "x" * 700


def replay_stream(raw: bytes) -> tuple[int, int | None]:
    """The snapshots in a raw event stream's complete events so far, and the version its
    reader holds after them; asserts that every patch follows the version held."""
    body = raw.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in raw else b""
    snapshots, held = 0, None
    for block in body.split(b"\n\n")[:-1]:
        fields = dict(line.decode().split(": ", 1) for line in block.split(b"\n") if line and not line.startswith(b":"))
        if fields.get("event") == "snapshot":
            snapshots += 1
            held = json.loads(fields["data"])["version"]
        elif fields.get("event") == "patch":
            patch = json.loads(fields["data"])
            assert held is not None and patch.get("base", patch["version"] - 1) == held, (patch.get("base"), patch["version"], held)
            held = patch["version"]
    return snapshots, held


def test_a_stream_that_stops_reading_is_shed_and_resynced_and_slows_no_one(daemon_factory):
    hub = daemon_factory(base_config(
        limits={"actionsPerSecond": 1000000, "actionBurst": 1000000, "outboundQueueBytes": SLOW_QUEUE, "maxMessageBytes": 1048576},
        reactors={"doc": {"maxBytes": 1048576}},
    ))
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(("127.0.0.1", hub.port))
    slow.sendall(f"GET {events_path('doc/flood')} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    fast = EventStream(hub, events_path("doc/flood"))
    api = Api(hub)
    try:
        held = fast.next().data["version"]
        start = hub.log_path.stat().st_size

        def shed() -> bool:
            with open(hub.log_path, "rb") as log:
                log.seek(start)
                return b"slow connection: discarded queued updates" in log.read()

        final = 0
        rounds = 0
        while not shed():
            rounds += 1
            assert rounds < 400, "the slow stream was never shed"
            actions = [{"reactor": "doc/flood", "action": {"type": "set", "path": "/pad", "value": f"{rounds}:{n}:{PAD}"}} for n in range(100)]
            final = api.request("POST", "/api/v1/actions", {"actions": actions}).json["results"][-1]["applied"]
            # The fast stream keeps reading, with no gap.
            while held < final:
                event = fast.next()
                if event.name == "snapshot":
                    held = event.data["version"]
                elif event.name == "patch":
                    assert event.data.get("base", event.data["version"] - 1) == held, (event.data.get("base"), held)
                    held = event.data["version"]
        # The slow stream reads again. It was owed a fresh snapshot, taken when its queue
        # drained: after the flood (at the final version), or during it when its socket
        # drained then, followed by every later patch; or it was closed for falling too
        # far behind. Never a gap: each patch follows the version held.
        slow.settimeout(15)
        buffer = b""
        snapshots, held, closed = 0, None, False
        deadline = time.monotonic() + 30
        while not (snapshots >= 2 and held is not None and held >= final) and time.monotonic() < deadline:
            chunk = slow.recv(65536)
            if not chunk:
                closed = True
                break
            buffer += chunk
            snapshots, held = replay_stream(buffer)
        assert closed or (snapshots >= 2 and held >= final), (snapshots, held, final)
    finally:
        slow.close()
        fast.close()
        api.close()


def test_a_stream_resumes_after_a_restart_on_sqlite_without_a_snapshot(daemon_factory, tmp_path):
    config = base_config(persistence={"kind": "sqlite", "path": str(tmp_path / "state.sqlite"), "flushMs": 20})
    hub = daemon_factory(config, name="sse-restart-1")
    api = Api(hub)
    stream = EventStream(hub, events_path("todo/durable"))
    snapshot = stream.next()
    api.act("todo/durable", {"type": "add", "title": "before"})
    last = stream.next()
    api.close()
    stream.close()
    port = hub.port
    assert hub.stop() == 0
    again = daemon_factory(config, name="sse-restart-2", arguments=("--port", str(port)))
    assert again.port == port
    resumed = EventStream(again, events_path("todo/durable"), headers={"Last-Event-ID": last.id})
    try:
        api = Api(again)
        api.act("todo/durable", {"type": "add", "title": "after"})
        event = resumed.next()
        assert (event.name, event.id) == ("patch", f"{snapshot.data['epoch']}:2")
        assert event.data["patch"][0]["value"]["title"] == "after"
        api.close()
    finally:
        resumed.close()


def test_a_stream_of_an_unknown_kind_or_address_is_refused_before_it_opens(hub):
    for path, status, code in [(events_path("nope/x"), 404, "unknown_reactor"), (events_path("counter/bad%20id"), 404, "invalid_reactor")]:
        stream = EventStream(hub, path)
        assert (stream.status, json.loads(stream.body())["error"]["code"]) == (status, code)
        stream.close()


def test_a_daemon_stopping_ends_its_streams(daemon_factory):
    hub = daemon_factory(base_config())
    stream = EventStream(hub, events_path("todo/shutdown"))
    assert stream.next().name == "snapshot"
    assert hub.stop() == 0
    assert stream.ended(timeout=5)
    stream.close()


def test_a_stream_past_the_instance_limit_is_503_before_it_opens_and_creates_nothing(daemon_factory):
    hub = daemon_factory(base_config(limits={"maxInstances": 1}))
    held = EventStream(hub, events_path("todo/held"))
    assert held.next().name == "snapshot"
    refused = EventStream(hub, events_path("todo/one-too-many"))
    assert (refused.status, json.loads(refused.body())["error"]["code"]) == (503, "overloaded")
    assert int(refused.headers["retry-after"]) >= 1
    refused.close()
    held.close()
    # Not created: reading it is refused the same way (todo/held still fills the one slot).
    assert call(hub, "GET", "/api/v1/reactors/todo/one-too-many").status == 503
