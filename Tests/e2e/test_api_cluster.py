"""The HTTP API on a cluster (shared/API.md "With a cluster", CLUSTER.md): two daemons on one
real redis-server; any node answers, an action is forwarded to the owner, an action id is
idempotent across nodes, an event stream on one node follows actions sent to another, and
a webhook event is sent once, by the owner."""
import re
import uuid

from api_support import Api, EventStream, HookReceiver, call
from cluster_support import cluster_factory, continue_process, redis_server, stop_process  # noqa: F401 (fixtures)
from conftest import wait_for
from sentinel_support import clients, resp

SECRET = "cluster-hook-secret"


def metric(daemon, name: str, **labels) -> float:
    text = call(daemon, "GET", "/metrics").body.decode()
    wanted = ",".join(f'{key}="{value}"' for key, value in labels.items())
    pattern = rf"^{name}\{{{re.escape(wanted)}\}} (\S+)$" if labels else rf"^{name} (\S+)$"
    match = re.search(pattern, text, re.M)
    return float(match.group(1)) if match else -1.0


def test_an_action_id_is_idempotent_across_nodes(cluster_factory):
    cluster = cluster_factory(count=2)
    first, second = Api(cluster.nodes[0]), Api(cluster.nodes[1])
    try:
        epoch = first.state("todo/everywhere").json["epoch"]  # node 0 owns it
        action_id = str(uuid.uuid4())
        applied = second.act("todo/everywhere", {"type": "add", "title": "once"}, action_id)
        assert applied.status == 200
        assert applied.json == {"reactor": "todo/everywhere", "epoch": epoch, "version": 0, "applied": 1}
        for api in (first, second):
            again = api.act("todo/everywhere", {"type": "add", "title": "once"}, action_id)
            assert again.json == {**applied.json, "duplicate": True}
        for api in (first, second):
            items = api.state("todo/everywhere").json["state"]["items"]
            assert [item["title"] for item in items] == ["once"]
        # Node 1 does not own the instance: its actions went to node 0's inbox.
        assert metric(cluster.nodes[1], "reactorhub_cluster_forwarded_actions_total") >= 2
    finally:
        first.close()
        second.close()


def test_a_refusal_is_idempotent_across_nodes_too(cluster_factory):
    cluster = cluster_factory(count=2)
    first, second = Api(cluster.nodes[0]), Api(cluster.nodes[1])
    try:
        first.state("todo/refused-everywhere")
        action_id = str(uuid.uuid4())
        refused = second.act("todo/refused-everywhere", {"type": "toggle", "id": "missing"}, action_id)
        assert (refused.status, refused.code) == (400, "invalid_action")
        again = first.act("todo/refused-everywhere", {"type": "toggle", "id": "missing"}, action_id)
        assert (again.status, again.json) == (400, {**refused.json, "duplicate": True})
    finally:
        first.close()
        second.close()


def test_a_batch_on_one_node_reaches_instances_owned_by_the_other(cluster_factory):
    cluster = cluster_factory(count=2)
    owner, other = Api(cluster.nodes[0]), Api(cluster.nodes[1])
    try:
        owner.state("todo/owned-a")
        reply = other.request("POST", "/api/v1/actions", {"actions": [
            {"reactor": "todo/owned-a", "action": {"type": "add", "title": "a"}},
            {"reactor": "todo/owned-b", "action": {"type": "add", "title": "b"}},
            {"reactor": "todo/owned-a", "action": {"type": "add", "title": "a2"}},
        ]})
        assert [(each["reactor"], each["applied"]) for each in reply.json["results"]] == [
            ("todo/owned-a", 1), ("todo/owned-b", 1), ("todo/owned-a", 2)]
        assert [item["title"] for item in owner.state("todo/owned-a").json["state"]["items"]] == ["a", "a2"]
    finally:
        owner.close()
        other.close()


def test_a_read_includes_what_was_acked_even_on_a_node_whose_channel_missed_it(cluster_factory):
    # API.md: an action is answered once its mutations are applied, so a GET that follows
    # the answer shows them, on whichever node. Node n1 holds a copy of the reactor; while
    # it is stopped its pub/sub link is cut, and the owner applies and acks an action: the
    # change's notice never reaches n1, whose link is rebuilt (and the log read again) only
    # some time after it wakes. A GET right after it wakes must not answer the old state.
    cluster = cluster_factory(count=2)
    owner, reader = Api(cluster.nodes[0]), Api(cluster.nodes[1])
    address = "todo/read-after-ack"
    try:
        owner.state(address)
        first = reader.state(address)
        assert (first.status, first.json["version"], first.json["state"]["items"]) == (200, 0, [])
        stop_process(cluster.nodes[1])
        try:
            subscriber = [c["id"] for c in clients(cluster.redis.port) if c.get("name") == "reactorhub-n1-subscriber"]
            assert len(subscriber) == 1, clients(cluster.redis.port)
            assert resp(cluster.redis.port, "CLIENT", "KILL", "ID", subscriber[0]) == 1
            acked = owner.act(address, {"type": "add", "title": "seen"})
            assert (acked.status, acked.json["applied"]) == (200, 1)
        finally:
            continue_process(cluster.nodes[1])
        read = reader.state(address)
        assert (read.status, read.json["epoch"], read.json["version"]) == (200, acked.json["epoch"], 1)
        assert [item["title"] for item in read.json["state"]["items"]] == ["seen"]
        assert read.headers["etag"] == f'"{acked.json["epoch"]}:1"'
    finally:
        owner.close()
        reader.close()


def test_an_event_stream_on_one_node_follows_actions_sent_to_the_other(cluster_factory):
    cluster = cluster_factory(count=2)
    stream = EventStream(cluster.nodes[1], "/api/v1/reactors/todo/followed/events")
    api = Api(cluster.nodes[0])
    try:
        snapshot = stream.next()
        assert snapshot.name == "snapshot"
        epoch = snapshot.data["epoch"]
        for title in ["x", "y"]:
            assert api.act("todo/followed", {"type": "add", "title": title}).status == 200
        events = [stream.next(), stream.next()]
        assert [(event.name, event.id) for event in events] == [("patch", f"{epoch}:1"), ("patch", f"{epoch}:2")]
        # Resumed on the other node from the last id: nothing missed, then live.
        stream.close()
        resumed = EventStream(cluster.nodes[0], "/api/v1/reactors/todo/followed/events", headers={"Last-Event-ID": events[-1].id})
        api.act("todo/followed", {"type": "add", "title": "z"})
        assert resumed.next().id == f"{epoch}:3"
        resumed.close()
    finally:
        stream.close()
        api.close()


def test_a_webhook_event_is_sent_once_by_the_owner(cluster_factory):
    receiver = HookReceiver(SECRET)
    try:
        hooks = [{"url": receiver.url, "secret": SECRET, "events": ["action", "instance.created"]}]
        cluster = cluster_factory(count=2, webhooks=hooks)
        owner, other = Api(cluster.nodes[0]), Api(cluster.nodes[1])
        try:
            owner.state("todo/hooked")            # node 0 creates and owns it
            other.state("todo/hooked")            # node 1 loads its replica: not a creation
            for title in ["one", "two"]:
                assert other.act("todo/hooked", {"type": "add", "title": title}).status == 200
            deliveries = receiver.wait_for(3)
        finally:
            owner.close()
            other.close()
        assert [(d.json["event"], d.json.get("applied")) for d in deliveries] == [("instance.created", None), ("action", 1), ("action", 2)]
        assert all(delivery.verified for delivery in deliveries)
        # The receiver has the last request before the owner has its answer: wait for the count.
        assert wait_for(lambda: metric(cluster.nodes[0], "reactorhub_webhook_attempts_total", webhook="0", outcome="delivered") == 3, timeout=15)
        assert metric(cluster.nodes[1], "reactorhub_webhook_attempts_total", webhook="0", outcome="delivered") == 0
        assert metric(cluster.nodes[1], "reactorhub_webhook_queue_bytes", webhook="0") == 0
    finally:
        receiver.stop()
