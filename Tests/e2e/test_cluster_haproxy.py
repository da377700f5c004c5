"""docs/cluster.md from a checkout: a redis-server, three daemons started with the shipped
config/cluster.json and Debian's haproxy with the shipped config/haproxy.cfg in front, all on
free loopback ports. A client goes through haproxy, acts, loses its node (SIGKILL), comes back
through haproxy on another node and resumes in the same epoch; haproxy takes the dead node out
(its /readyz no longer answers) and no new connection lands there. The HTTP API's event stream
(SSE) and its actions pass through the same haproxy."""
import os
import shutil
import signal
import subprocess
import urllib.error
import urllib.request

import pytest
from websockets.exceptions import ConnectionClosed

from api_support import EventStream, call
from auth_support import Client
from cluster_support import free_port, redis_server  # noqa: F401 (fixture)
from conftest import OUTPUT, ROOT, Daemon, wait_for

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
CLUSTER_CONFIG = ROOT / "config" / "cluster.json"
HAPROXY_CONFIG = ROOT / "config" / "haproxy.cfg"

pytestmark = pytest.mark.skipif(not os.path.exists(HAPROXY), reason="no haproxy (scripts/ensure-deps.sh test installs it)")


class HAProxy:
    """haproxy -db -f config/haproxy.cfg with RH_LISTEN and RH_NODE1..3 set; up once /readyz
    answers 200 through it."""

    def __init__(self, nodes: list[Daemon]):
        self.port = free_port()
        env = {**os.environ, "RH_LISTEN": f"127.0.0.1:{self.port}"}
        for index, node in enumerate(nodes, start=1):
            env[f"RH_NODE{index}"] = f"127.0.0.1:{node.port}"
        self.log = open(OUTPUT / "haproxy.log", "ab")
        self.process = subprocess.Popen([HAPROXY, "-db", "-f", str(HAPROXY_CONFIG)], env=env,
                                        stdout=self.log, stderr=self.log)
        assert wait_for(lambda: self.process.poll() is not None or self.get("/readyz")[0] == 200, timeout=30), \
            "haproxy did not pass /readyz through"
        assert self.process.poll() is None, "haproxy exited; see test-output/haproxy.log"
        self.url = f"ws://127.0.0.1:{self.port}/ws"

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=5) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()
        except OSError:
            return 0, ""

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(15)
        self.log.close()


@pytest.fixture
def cluster(daemon_factory, redis_server):  # noqa: F811 (the fixture of cluster_support)
    """`reactorhub --config config/cluster.json --port 0 --node-id nodeN --cluster-redis ADDRESS`
    three times, and haproxy in front."""
    nodes = [daemon_factory(CLUSTER_CONFIG, name=f"haproxy-node{index}",
                            arguments=("--node-id", f"node{index}", "--cluster-redis", redis_server.address))
             for index in (1, 2, 3)]
    proxy = HAProxy(nodes)
    yield nodes, proxy
    proxy.stop()


def test_docs_cluster_md_runs_the_shipped_files():
    text = (ROOT / "docs" / "cluster.md").read_text()
    for line in ('redis-server --port 6379 --save "" --appendonly no &',
                 ".build/release/reactorhub --config config/cluster.json --port $((8080 + i)) --node-id node$i &",
                 "haproxy -f config/haproxy.cfg"):
        assert line in text, f"docs/cluster.md no longer says: {line}"
    assert "shared/" not in text and "CLUSTER.md" not in text and "PROTOCOL.md" not in text


def act_until_accepted(client: Client, address: str, action: str, attempts: int = 20) -> dict:
    """An action, sent again while the instance's owner is being replaced (`overloaded`)."""
    for _ in range(attempts):
        reply = client.act(address, action)
        if reply["type"] == "ack":
            return reply
        assert reply["code"] == "overloaded", reply
    raise AssertionError(f"{action} on {address} was refused {attempts} times")


def wait_value(client: Client, address: str, value: int) -> int:
    """Reads patches until the counter holds `value` and is not loading; returns the version."""
    while True:
        frame = client.next_unsolicited(lambda f: f.get("type") == "patch" and f.get("reactor") == address, timeout=30)
        for op in frame["patch"]:
            client.state[op["path"].lstrip("/")] = op["value"]
        if client.state == {"value": value, "isLoading": False}:
            return frame["version"]


def test_a_client_through_haproxy_survives_its_node_being_killed(cluster):
    nodes, proxy = cluster
    status, body = proxy.get("/healthz")
    assert (status, body.strip()) == (200, "ok")
    address = f"counter/haproxy{os.getpid()}"
    first = Client(proxy.url)
    by_id = {f"node{index}": node for index, node in enumerate(nodes, start=1)}
    assert first.hello["node"] in by_id
    snapshot = first.join(address)
    assert snapshot["type"] == "snapshot"
    first.state = dict(snapshot["state"])
    epoch = snapshot["epoch"]
    act_until_accepted(first, address, "increase")
    version = wait_value(first, address, 1)

    victim = by_id[first.hello["node"]]
    victim.process.kill()
    victim.process.wait()
    with pytest.raises((ConnectionClosed, TimeoutError)):
        while True:
            first.recv(30)

    # Through the same address, on another node, resumed in the same epoch.
    second = Client(proxy.url)
    victim_id = first.hello["node"]
    assert second.hello["node"] != victim_id
    resumed = second.request({"type": "join", "reactor": address, "since": {"epoch": epoch, "version": version}})
    assert resumed["type"] == "resumed", resumed
    assert resumed["epoch"] == epoch and resumed["version"] == version
    second.state = {"value": 1, "isLoading": False}
    act_until_accepted(second, address, "increase")
    wait_value(second, address, 2)

    # haproxy's /readyz check takes the dead node out: every new connection lands elsewhere.
    survivors = set(by_id) - {victim_id}
    assert wait_for(lambda: proxy.get("/readyz")[0] == 200, timeout=10)
    clients = [Client(proxy.url) for _ in range(6)]  # kept open: leastconn counts them
    landed = [client.hello["node"] for client in clients]
    assert set(landed) <= survivors, landed
    assert set(landed) == survivors, f"leastconn should use both survivors: {landed}"


def test_an_event_stream_and_http_actions_pass_through_haproxy(cluster):
    nodes, proxy = cluster
    address = f"counter/sse{os.getpid()}"
    stream = EventStream(proxy, f"/api/v1/reactors/{address}/events")
    try:
        assert stream.status == 200, stream.body()
        snapshot = stream.next(30)
        assert snapshot.name == "snapshot"
        assert snapshot.data["state"] == {"value": 0, "isLoading": False}
        epoch = snapshot.data["epoch"]
        assert snapshot.id == f"{epoch}:{snapshot.data['version']}"
        # Through haproxy, maybe on another node than the stream's: a node that does not own
        # the instance yet answers overloaded while it is being taken (CLUSTER.md).
        for _ in range(20):
            reply = call(proxy, "POST", f"/api/v1/reactors/{address}/actions", {"action": "increase"})
            if reply.status == 200:
                break
            assert (reply.status, reply.code) == (503, "overloaded"), (reply.status, reply.body)
        assert reply.status == 200, reply.body
        applied = reply.json["applied"]
        # The stream follows the counter to 1 (the immediate isLoading, then the value) in order.
        state = dict(snapshot.data["state"])
        versions = []
        for event in stream.until(lambda e: e.name == "patch" and state_after(state, e) == {"value": 1, "isLoading": False}
                                  and e.data["version"] > applied, timeout=30):
            if event.name == "patch":
                versions.append(event.data["version"])
                assert event.id == f"{epoch}:{event.data['version']}"
        assert versions == sorted(versions) and len(set(versions)) == len(versions), versions
        assert state == {"value": 1, "isLoading": False}
    finally:
        stream.close()


def state_after(state: dict, event) -> dict:
    """Applies a counter patch event's `replace`/`add` operations to `state` in place."""
    for op in event.data["patch"]:
        assert op["op"] in ("replace", "add"), op
        state[op["path"].lstrip("/")] = op["value"]
    return state
