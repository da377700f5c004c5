"""Convergence: eight clients share one `doc` and one `todo` instance and send 2,000
random actions at once (valid and invalid); every copy ends equal to a fresh snapshot,
with no gap, every action answered once as expected, and every version accounted for."""
import asyncio
import os
import time

from conftest import base_config
from sync_harness import (
    Expect, RssSampler, SyncClient, WorkloadDriver, canonical, check_replies, check_version_accounting,
    mib, settle, settle_action, write_report,
)

CLIENTS = 8
ACTIONS = 2000
SEED = int(os.environ.get("REACTORHUB_SYNC_SEED", "1000"))  # override for a soak run
DOC, TODO = "doc/convergence", "todo/convergence"


def config():
    return base_config(
        limits={"actionsPerSecond": 100000, "actionBurst": 100000},
        reactors={"todo": {"maxItems": 100000, "maxTitleLength": 200}, "doc": {"maxBytes": 1048576}},
    )


async def run(daemon):
    rss = RssSampler(daemon).start()
    clients = [SyncClient(daemon.url, f"c{i}") for i in range(CLIENTS)]
    for client in clients:
        await client.connect()
        assert (await client.join(DOC))["type"] == "snapshot"
        assert (await client.join(TODO))["type"] == "snapshot"
    drivers = [WorkloadDriver(c, i, DOC, TODO, seed=SEED + i, actions=ACTIONS // CLIENTS) for i, c in enumerate(clients)]
    shared = drivers[0]._act(DOC, {"type": "set", "path": "/shared", "value": {"n": 0, "log": []}},
                             drivers[0].doc_work.setup()[1])
    assert (await shared.future)["type"] == "ack"
    for driver in drivers:
        await driver.setup()

    started = time.monotonic()
    await asyncio.gather(*(driver.run() for driver in drivers))
    # a marker action per reactor, recorded like the others, then every copy catches up
    markers = {a: drivers[0]._act(a, settle_action(a), Expect("ack", "always", label="settle")).future for a in (DOC, TODO)}
    fresh = await settle(clients, [DOC, TODO], daemon.url, via=clients[0], futures=markers)
    duration = time.monotonic() - started
    await rss.stop()

    sent = [record for driver in drivers for record in driver.sent]
    problems, counts = check_replies(sent)
    assert problems == [], "\n".join(problems[:20])

    for client in clients:
        assert client.failures == [], client.failures[:10]
        for address in (DOC, TODO):
            epoch, version, state = fresh[address]
            copy = client.copy(address)
            assert copy.epoch == epoch and copy.version == version, (client.name, address, copy.version, version)
            assert canonical(copy.state) == canonical(state), f"{client.name} diverged on {address}"
            # joined at version 0 and saw every version through patches, none skipped
            assert copy.versions == version and copy.snapshots == 1 and copy.resyncs == 0

    accounting = {}
    for address in (DOC, TODO):
        version_problems, accounting[address] = check_version_accounting(sent, address, fresh[address][1])
        assert version_problems == [], "\n".join(version_problems[:20])
    # every doc action but `emit` and the refused ones changes the document: exact count
    assert accounting[DOC]["maybeChanging"] == 0
    assert fresh[DOC][1] == accounting[DOC]["alwaysChanging"]

    # pulses: every client got every acked emit exactly once, in one same order, each
    # carrying its emit's ack version, and never before that step's patch (the harness
    # also checks held == version after per-version frames)
    emits = {r.expect.emit: r for r in sent if r.expect.emit and r.reply["type"] == "ack"}
    orders = []
    for client in clients:
        pulses = client.pulses_of(DOC)
        names = [p.value["name"] for p in pulses]
        assert sorted(names) == sorted(emits), f"{client.name}: pulses differ from the acked emits"
        assert all(p.name == "event" for p in pulses)
        for pulse in pulses:
            record = emits[pulse.value["name"]]
            assert pulse.version == record.reply["version"], (pulse, record.reply)
            assert pulse.version <= pulse.held, f"{client.name}: pulse {pulse} arrived while holding {pulse.held}"
            assert pulse.value["value"] == record.action.get("value")
        orders.append(names)
    assert all(order == orders[0] for order in orders)
    # ack before effects: the emitter reads its emit's ack before the pulse it causes
    for driver, client in zip(drivers, clients):
        arrival = {p.value["name"]: p.index for p in client.pulses_of(DOC)}
        for record in driver.sent:
            if record.expect.emit in emits:
                assert client.reply_index[record.ref] < arrival[record.expect.emit]

    coalesced = sum(c.copy(a).coalesced for c in clients for a in (DOC, TODO))
    figures = {
        "clients": CLIENTS, "actionsSent": len(sent), "randomActions": ACTIONS, "durationSeconds": round(duration, 2),
        "replies": counts, "finalVersions": {a: fresh[a][1] for a in (DOC, TODO)},
        "accounting": accounting, "pulsesPerClient": len(emits), "coalescedPatchFrames": coalesced,
        "todoItems": len(fresh[TODO][2]["items"]),
        "daemonRssBaseMiB": mib(rss.samples[0][1]), "daemonRssPeakMiB": mib(rss.peak()),
        "clientsReport": [c.report() for c in clients],
    }
    for client in clients:
        await client.close()
    return figures


def test_convergence_of_eight_clients_under_random_actions(daemon_factory):
    daemon = daemon_factory(config())
    figures = asyncio.run(run(daemon))
    write_report("convergence", figures)
    assert figures["actionsSent"] >= ACTIONS
    assert figures["replies"]["expectedErrors"] > 100 and figures["replies"]["ack"] > 1000
