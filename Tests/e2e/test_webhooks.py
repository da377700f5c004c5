"""Webhooks (shared/API.md "Webhooks", CONFIG.md `webhooks`) into real HTTP receivers: the
events and their bodies, HMAC-SHA256 signatures, retries with the same id, the order per
reactor, dropped events counted, bounded queues, and a receiver that never answers while
WebSocket clients keep getting their acks. The example receiver of Examples/webhook-receiver
runs here too."""
import http.client
import json
import re
import subprocess
import sys
import threading
import time

import pytest

from api_support import Api, HookReceiver, call, signature
from auth_support import Client, auth_config, token
from conftest import ROOT, base_config, wait_for

SECRET = "hook-secret-0123456789"
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@pytest.fixture
def receivers():
    started = []

    def start(**options) -> HookReceiver:
        receiver = HookReceiver(SECRET, **options)
        started.append(receiver)
        return receiver

    yield start
    for receiver in started:
        receiver.stop()


def hook(receiver: HookReceiver, **options) -> dict:
    return {"url": receiver.url, "secret": SECRET, **options}


def metric(hub, name: str, **labels) -> float:
    text = call(hub, "GET", "/metrics").body.decode()
    wanted = ",".join(f'{key}="{value}"' for key, value in labels.items())
    match = re.search(rf"^{name}\{{{re.escape(wanted)}\}} (\S+)$", text, re.M)
    return float(match.group(1)) if match else -1.0


def test_events_are_signed_and_carry_what_api_md_names(daemon_factory, receivers):
    receiver = receivers()
    hub = daemon_factory(auth_config({"required": False, "anonymousRights": {"read": ["*"], "act": ["*"]}},
                                     reactors={"counter": {"delayMs": 20}}, webhooks=[hook(receiver)]))
    alice = Api(hub, bearer=token("alice"))
    try:
        reply = alice.act("counter/hooked", "increase").json
        deliveries = receiver.wait_for(3)
    finally:
        alice.close()
    bodies = [delivery.json for delivery in deliveries]
    assert [body["event"] for body in bodies] == ["instance.created", "action", "pulse"]
    created, action, pulse = bodies
    assert created == {"id": created["id"], "event": "instance.created", "time": created["time"], "reactor": "counter/hooked",
                       "epoch": reply["epoch"], "version": 0}
    assert action == {"id": action["id"], "event": "action", "time": action["time"], "reactor": "counter/hooked",
                      "sub": "alice", "action": {"type": "increase"}, "version": 0, "applied": 1}
    assert pulse == {"id": pulse["id"], "event": "pulse", "time": pulse["time"], "reactor": "counter/hooked",
                     "version": 3, "name": "alertMessage", "value": "increased!"}
    for delivery, body in zip(deliveries, bodies):
        assert delivery.verified and delivery.id == body["id"] and UUID.match(body["id"])
        assert TIME.match(body["time"]) and delivery.timestamp.isdigit()
        assert abs(int(delivery.timestamp) - time.time()) < 300
        assert delivery.signature == signature(SECRET, delivery.timestamp, delivery.body)
    assert len({body["id"] for body in bodies}) == 3


def test_failed_attempts_are_retried_with_the_same_id_and_the_order_is_kept(daemon_factory, receivers):
    receiver = receivers(failures=1)  # each event's first attempt is answered 503
    hub = daemon_factory(base_config(webhooks=[hook(receiver, events=["action"])]))
    api = Api(hub)
    try:
        for title in ["one", "two", "three"]:
            assert api.act("todo/ordered", {"type": "add", "title": title}).status == 200
        deliveries = receiver.wait_for(3)
    finally:
        api.close()
    assert [delivery.json["action"]["title"] for delivery in deliveries] == ["one", "two", "three"]
    assert [delivery.json["applied"] for delivery in deliveries] == [1, 2, 3]
    attempts = [each for each in receiver.deliveries]
    assert [(each.id, each.answered) for each in attempts] == [
        (deliveries[0].id, 503), (deliveries[0].id, 200), (deliveries[1].id, 503), (deliveries[1].id, 200),
        (deliveries[2].id, 503), (deliveries[2].id, 200),
    ]
    assert all(each.verified for each in attempts)
    # How long each retry waits (2^(n-1) s ± 20 %) is asserted as values in WebhookRetryTests.
    assert metric(hub, "reactorhub_webhook_retries_total", webhook="0") == 3
    assert metric(hub, "reactorhub_webhook_attempts_total", webhook="0", outcome="failed") == 3


def test_reactors_are_independent_lanes(daemon_factory, receivers):
    receiver = receivers(failures=1)
    hub = daemon_factory(base_config(webhooks=[hook(receiver, events=["action"])]))
    api = Api(hub)
    try:
        api.act("todo/lane-a", {"type": "add", "title": "a1"})
        api.act("todo/lane-b", {"type": "add", "title": "b1"})
        api.act("todo/lane-a", {"type": "add", "title": "a2"})
        deliveries = receiver.wait_for(3)
    finally:
        api.close()
    by_reactor = {}
    for delivery in deliveries:
        by_reactor.setdefault(delivery.json["reactor"], []).append(delivery.json["action"]["title"])
    assert by_reactor == {"todo/lane-a": ["a1", "a2"], "todo/lane-b": ["b1"]}


def test_an_event_whose_attempts_all_fail_is_dropped_and_counted(daemon_factory, receivers):
    receiver = receivers(failures=1000)
    hub = daemon_factory(base_config(webhooks=[hook(receiver, events=["action"], maxAttempts=2)]))
    assert call(hub, "POST", "/api/v1/reactors/todo/lost/actions", {"action": {"type": "add", "title": "x"}}).status == 200
    assert wait_for(lambda: metric(hub, "reactorhub_webhook_dropped_total", webhook="0", reason="attempts") == 1, timeout=15)
    assert list(receiver.attempts.values()) == [2]
    assert metric(hub, "reactorhub_webhook_queue_bytes", webhook="0") == 0


def test_each_receiver_hears_only_its_events_and_reactors(daemon_factory, receivers):
    pulses, actions = receivers(), receivers()
    hub = daemon_factory(base_config(reactors={"counter": {"delayMs": 20}}, webhooks=[
        hook(pulses, events=["pulse"], reactors=["counter/*"]),
        hook(actions, events=["action"], reactors=["todo/kept*"]),
    ]))
    api = Api(hub)
    try:
        api.act("doc/unheard", {"type": "emit", "name": "ignored"})
        api.act("todo/other", {"type": "add", "title": "not heard"})
        api.act("todo/kept-1", {"type": "add", "title": "heard"})
        api.act("counter/heard", "increase")  # its pulse is the last event of all
        heard_pulse = pulses.wait_for(1)
        heard_action = actions.wait_for(1)
    finally:
        api.close()
    assert (heard_pulse[0].json["event"], heard_pulse[0].json["reactor"]) == ("pulse", "counter/heard")
    assert (heard_action[0].json["event"], heard_action[0].json["reactor"]) == ("action", "todo/kept-1")
    # The receiver has the request before the daemon has its answer: wait for the count.
    for index in (0, 1):
        assert wait_for(lambda: metric(hub, "reactorhub_webhook_attempts_total", webhook=str(index), outcome="delivered") == 1, timeout=15)
        assert metric(hub, "reactorhub_webhook_queue_bytes", webhook=str(index)) == 0


def test_instances_created_and_evicted_are_told(daemon_factory, receivers):
    receiver = receivers()
    hub = daemon_factory(base_config(diagnostics={"idleEvictionMs": 200}, webhooks=[hook(receiver, events=["instance.created", "instance.evicted"])]))
    epoch = call(hub, "GET", "/api/v1/reactors/todo/passing").json["epoch"]
    deliveries = receiver.wait_for(2)
    assert [(d.json["event"], d.json["reactor"], d.json["epoch"], d.json["version"]) for d in deliveries] == [
        ("instance.created", "todo/passing", epoch, 0), ("instance.evicted", "todo/passing", epoch, 0),
    ]


def test_a_receiver_that_never_answers_slows_no_websocket_client(daemon_factory, receivers):
    stuck = receivers(never_answer=True)
    hub = daemon_factory(base_config(
        limits={"actionsPerSecond": 100000, "actionBurst": 100000},
        webhooks=[hook(stuck, timeoutMs=60000, queueBytes=65536)],
    ))
    acks = {}
    failures = []

    def client_session(index: int) -> None:
        try:
            client = Client(hub.url)
            client.join(f"todo/busy-{index}")
            count = 0
            for n in range(150):
                reply = client.act(f"todo/busy-{index}", {"type": "add", "title": f"{index}-{n}"})
                assert reply["type"] == "ack", reply
                count += 1
            acks[index] = count
            client.close()
        except Exception as error:  # reported below, with the others
            failures.append(repr(error))

    threads = [threading.Thread(target=client_session, args=(index,)) for index in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == [] and acks == {0: 150, 1: 150, 2: 150}
    # Meanwhile the receiver held every request it got, and the events piled up in the
    # receiver's own bounded queue (the oldest dropped), never in front of the clients.
    stuck.wait_for_attempts(1)
    assert metric(hub, "reactorhub_webhook_attempts_total", webhook="0", outcome="delivered") == 0
    assert 0 < metric(hub, "reactorhub_webhook_queue_bytes", webhook="0") <= 65536
    assert metric(hub, "reactorhub_webhook_dropped_total", webhook="0", reason="queue") > 0


def test_the_example_receiver_accepts_signed_events_and_refuses_forgeries(daemon_factory):
    script = ROOT / "Examples" / "webhook-receiver" / "receiver.py"
    receiver = subprocess.Popen([sys.executable, str(script), "--secret", SECRET, "--port", "0"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = receiver.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:"), line
        port = int(line.strip().rstrip("/").rsplit(":", 1)[1])
        hub = daemon_factory(base_config(webhooks=[{"url": f"http://127.0.0.1:{port}/", "secret": SECRET, "events": ["action"]}]))
        assert call(hub, "POST", "/api/v1/reactors/todo/example/actions", {"action": {"type": "add", "title": "signed"}}).status == 200
        event = json.loads(receiver.stdout.readline())
        assert (event["event"], event["reactor"], event["action"]) == ("action", "todo/example", {"type": "add", "title": "signed"})
        body = json.dumps(event).encode()
        now = str(int(time.time()))
        for headers, status in [
            ({"X-ReactorHub-Timestamp": now, "X-ReactorHub-Signature": "sha256=" + "0" * 64}, 401),
            ({"X-ReactorHub-Timestamp": str(int(time.time()) - 3600), "X-ReactorHub-Signature": signature(SECRET, str(int(time.time()) - 3600), body)}, 401),
            ({"X-ReactorHub-Timestamp": now, "X-ReactorHub-Signature": signature(SECRET, now, body), "X-ReactorHub-Id": event["id"]}, 204),
        ]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("POST", "/", body=body, headers={"Content-Type": "application/json", **headers})
            assert connection.getresponse().status == status
            connection.close()
    finally:
        receiver.kill()
        receiver.wait()


def test_the_configuration_refuses_a_bad_webhook_and_never_prints_a_secret(tmp_path):
    from conftest import BINARY
    secret = "TOP-SECRET-value"
    for webhook in [{"url": "ftp://x", "secret": secret}, {"url": "http://x"}, {"url": "http://x", "secret": secret, "events": ["nope"]},
                    {"url": "http://x", "secret": secret, "reactors": ["doc/{sub}"]}, {"url": "http://x", "secret": secret, "maxAttempts": 0},
                    {"url": "http://x", "secret": secret, "extra": 1}]:
        path = tmp_path / "bad.json"
        path.write_text(json.dumps({"webhooks": [webhook]}))
        result = subprocess.run([str(BINARY), "--config", str(path), "--port", "0"], capture_output=True, text=True, timeout=30)
        assert result.returncode == 2, webhook
        assert "webhooks must be" in result.stderr and secret not in result.stderr, result.stderr
    path = tmp_path / "good.json"
    path.write_text(json.dumps({"webhooks": [{"url": "http://127.0.0.1:9/hooks", "secret": secret, "events": ["pulse"]}]}))
    printed = subprocess.run([str(BINARY), "--config", str(path), "--print-config"], capture_output=True, text=True, timeout=30)
    assert json.loads(printed.stdout)["webhooks"] == [{
        "url": "http://127.0.0.1:9/hooks", "secret": "***", "events": ["pulse"], "reactors": ["*"], "timeoutMs": 5000,
        "maxAttempts": 8, "queueBytes": 8388608,
    }]
