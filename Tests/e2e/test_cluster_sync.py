"""The multi-client sync suites across three nodes on one Redis (shared/CLUSTER.md): clients
spread over the nodes converge, with one epoch everywhere, no gap, exactly one reply per
action, and the ack before the patch for forwarded actions; resume works on another node."""
import asyncio
import json
import os
import urllib.request

from cluster_support import cluster_factory, redis_server  # noqa: F401 (fixtures)
from sync_harness import (
    Expect, SyncClient, WorkloadDriver, canonical, check_replies, check_version_accounting, settle, settle_action,
    write_report,
)

CLIENTS = 6
ACTIONS = 600
SEED = int(os.environ.get("REACTORHUB_SYNC_SEED", "2000"))
DOC, TODO = "doc/cluster-sync", "todo/cluster-sync"


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def converge(cluster):
    urls = cluster.urls
    clients = [SyncClient(urls[i % len(urls)], f"c{i}") for i in range(CLIENTS)]
    for client in clients:
        await client.connect()
        assert (await client.join(DOC))["type"] == "snapshot"
        assert (await client.join(TODO))["type"] == "snapshot"
    nodes = {client.hello["node"] for client in clients}
    assert nodes == {"n0", "n1", "n2"}
    drivers = [WorkloadDriver(c, i, DOC, TODO, seed=SEED + i, actions=ACTIONS // CLIENTS, window=8) for i, c in enumerate(clients)]
    shared = drivers[0]._act(DOC, {"type": "set", "path": "/shared", "value": {"n": 0, "log": []}}, drivers[0].doc_work.setup()[1])
    assert (await shared.future)["type"] == "ack"
    for driver in drivers:
        await driver.setup()
    await asyncio.gather(*(driver.run() for driver in drivers))
    markers = {a: drivers[1]._act(a, settle_action(a), Expect("ack", "always", label="settle")).future for a in (DOC, TODO)}
    # the fresh snapshots come from the barrier client's node (another node's replica may
    # trail it by a moment; every client then waits for that version)
    fresh = await settle(clients, [DOC, TODO], clients[1].url, via=clients[1], futures=markers)

    sent = [record for driver in drivers for record in driver.sent]
    problems, counts = check_replies(sent)
    assert problems == [], "\n".join(problems[:20])
    for client in clients:
        assert client.failures == [], (client.name, client.failures[:10])
        for address in (DOC, TODO):
            epoch, version, state = fresh[address]
            copy = client.copy(address)
            assert copy.epoch == epoch and copy.version == version, (client.name, address, copy.version, version)
            assert canonical(copy.state) == canonical(state), f"{client.name} diverged on {address}"
            assert copy.versions == version and copy.snapshots == 1 and copy.resyncs == 0
    for address in (DOC, TODO):
        version_problems, _ = check_version_accounting(sent, address, fresh[address][1])
        assert version_problems == [], "\n".join(version_problems[:20])
    # every client saw the same patch for every version (no fork anywhere)
    merged = {}
    for client in clients:
        for key, text in client.patch_texts.items():
            assert merged.setdefault(key, text) == text, f"{client.name}: {key} differs"
    # pulses: every client got the acked emits once, in one order
    emits = {r.expect.emit for r in sent if r.expect.emit and r.reply["type"] == "ack"}
    orders = [[p.value["name"] for p in client.pulses_of(DOC)] for client in clients]
    assert sorted(orders[0]) == sorted(emits)
    assert all(order == orders[0] for order in orders)
    figures = {"clients": CLIENTS, "actions": len(sent), "replies": counts, "versions": {a: fresh[a][1] for a in (DOC, TODO)}}
    for client in clients:
        await client.close()
    return figures


def test_clients_spread_over_three_nodes_converge_with_one_epoch_and_no_gap(cluster_factory):
    cluster = cluster_factory(3)
    figures = asyncio.run(converge(cluster))
    write_report("cluster-convergence", figures)
    assert figures["replies"]["ack"] > 300
    forwarded = 0
    for node in cluster.nodes:
        status, text = get(node.port, "/metrics")
        assert status == 200
        for line in text.splitlines():
            if line.startswith("reactorhub_cluster_forwarded_actions_total"):
                forwarded += int(float(line.split()[-1]))
    assert forwarded > 100, "clients on the followers had their actions forwarded"


async def resume_elsewhere(cluster):
    urls = cluster.urls
    address = "doc/cluster-resume"
    roamer = SyncClient(urls[0], "roamer")
    writer = SyncClient(urls[1], "writer")
    for client in (roamer, writer):
        await client.connect()
        await client.join(address)
    for i in range(3):
        assert (await writer.act(address, {"type": "set", "path": f"/a{i}", "value": i}))["type"] == "ack"
    await roamer.wait_version(address, 3)
    await roamer.disconnect(abort=True)
    for i in range(5):
        assert (await writer.act(address, {"type": "set", "path": f"/b{i}", "value": i}))["type"] == "ack"
    await writer.wait_version(address, 8)
    roamer.url = urls[2]
    await roamer.connect()
    assert roamer.hello["node"] == "n2"
    reply = await roamer.rejoin(address)
    assert reply["type"] == "resumed", reply
    assert reply["version"] == 3
    await roamer.wait_version(address, 8)
    copy = roamer.copy(address)
    assert copy.versions == 8 and copy.resumed == 1 and copy.snapshots == 1
    assert canonical(copy.state) == canonical(writer.copy(address).state)
    assert roamer.failures == [] and writer.failures == []
    # a since of another epoch gets a snapshot, never resumed
    other = SyncClient(urls[1], "other")
    await other.connect()
    assert (await other.join(address, since={"epoch": "not-this-one", "version": 2}))["type"] == "snapshot"
    for client in (roamer, writer, other):
        await client.close()


def test_resume_on_another_node_gets_exactly_the_missed_patches(cluster_factory):
    asyncio.run(resume_elsewhere(cluster_factory(3)))


def test_hello_names_the_node_and_readyz_and_metrics_show_the_cluster(cluster_factory):
    cluster = cluster_factory(2)
    from conftest import wait_for
    for node in cluster.nodes:
        assert wait_for(lambda: get(node.port, "/readyz")[0] == 200, timeout=15)
        assert get(node.port, "/readyz")[1].strip() == "ready"

    async def hello(url):
        client = SyncClient(url, "hello")
        message = await client.connect()
        await client.join("counter/cluster-hello")
        await client.close()
        return message
    messages = [asyncio.run(hello(url)) for url in cluster.urls]
    assert [m["node"] for m in messages] == ["n0", "n1"]
    status, text = get(cluster.nodes[0].port, "/metrics")
    assert "reactorhub_cluster_redis_up 1" in text
    owned = [int(float(line.split()[-1])) for node in cluster.nodes
             for line in get(node.port, "/metrics")[1].splitlines() if line.startswith("reactorhub_cluster_owned_instances")]
    assert sorted(owned) == [0, 1], "exactly one node owns the instance"
    cluster.redis.process.kill()
    cluster.redis.process.wait()
    assert wait_for(lambda: get(cluster.nodes[0].port, "/readyz")[0] == 503, timeout=10)
    assert get(cluster.nodes[0].port, "/readyz")[1].strip() == "cluster link down"
    cluster.redis.start()
    assert wait_for(lambda: get(cluster.nodes[0].port, "/readyz")[0] == 200, timeout=15)
