"""Server-coalesced patches: a long burst of changes processed in one drain leaves as one
patch frame spanning several versions (`base`). Provoked here with pipelined bursts from
two writers; every observer applies those frames (base = the version held), converges,
and still receives every pulse in order, never before the patch of its step."""
import asyncio
import time

import pytest

from conftest import base_config
from sync_harness import RssSampler, SyncClient, barrier, canonical, fresh_snapshot, mib, write_report

ADDRESS = "doc/coalescing"
BURST = 300
MAX_BURSTS = 10


async def run(daemon):
    rss = RssSampler(daemon).start()
    started = time.monotonic()
    writers = [SyncClient(daemon.url, f"writer{i}") for i in range(2)]
    observers = [SyncClient(daemon.url, f"observer{i}", log_events=True) for i in range(3)]
    for client in writers + observers:
        await client.connect()
        await client.join(ADDRESS)
    emitted = []
    bursts = 0
    while bursts < MAX_BURSTS and not all(o.copy(ADDRESS).coalesced for o in observers):
        futures = []
        for k in range(BURST):
            for w, writer in enumerate(writers):
                if k % 10 == 9:
                    name = f"w{w}-{bursts}-{k}"
                    emitted.append(name)
                    futures.append(writer.act(ADDRESS, {"type": "emit", "name": name}))
                else:
                    futures.append(writer.act(ADDRESS, {"type": "set", "path": f"/w{w}/{k % 5}" if k > 0 else f"/w{w}",
                                                        "value": {} if k == 0 else [bursts, k]}))
        replies = await asyncio.gather(*futures)
        assert all(reply["type"] == "ack" for reply in replies), [r for r in replies if r["type"] != "ack"][:3]
        final = await barrier(writers[0], ADDRESS)
        for observer in observers:
            await observer.wait_version(ADDRESS, final)
        bursts += 1
    epoch, final, state = await fresh_snapshot(daemon.url, ADDRESS)
    figures = {"bursts": bursts, "actionsSent": bursts * BURST * 2, "finalVersion": final, "observers": []}
    orders = []
    for observer in observers:
        await observer.wait_version(ADDRESS, final)
        copy = observer.copy(ADDRESS)
        assert observer.failures == []
        assert copy.coalesced > 0, "no coalesced frame could be provoked"
        assert canonical(copy.state) == canonical(state) and copy.versions == final
        spans = [(detail, version) for _, kind, version, detail in copy.log if kind == "patch"]
        assert len(spans) == copy.patches < final
        pulses = observer.pulses_of(ADDRESS)
        assert all(p.version <= p.held for p in pulses)
        orders.append([p.value["name"] for p in pulses])
        figures["observers"].append({"frames": copy.patches, "coalescedFrames": copy.coalesced, "versions": copy.versions,
                                     "pulses": len(pulses), "pulsesAfterCoalescedFrame": sum(p.after_base is not None for p in pulses)})
    # every emit reached every observer once, in the order of each writer's emits
    for order in orders:
        assert sorted(order) == sorted(emitted)
        for w in range(2):
            mine = [name for name in order if name.startswith(f"w{w}-")]
            assert mine == [name for name in emitted if name.startswith(f"w{w}-")]
    for client in writers + observers:
        await client.close()
    await rss.stop()
    figures.update(durationSeconds=round(time.monotonic() - started, 2), daemonRssPeakMiB=mib(rss.peak()))
    return figures


def test_server_coalesced_patch_frames_are_applied_and_pulses_stay_ordered(daemon_factory):
    daemon = daemon_factory(base_config(limits={"actionsPerSecond": 1000000, "actionBurst": 1000000}))
    figures = asyncio.run(run(daemon))
    write_report("coalesced_frames", figures)


async def run_large_burst(daemon):
    writer = SyncClient(daemon.url, "writer")
    reader = SyncClient(daemon.url, "reader")
    for client in (writer, reader):
        await client.connect()
        await client.join(ADDRESS)
    futures = []
    for k in range(300):
        futures.append(writer.act(ADDRESS, {"type": "set", "path": "/a", "value": f"{k}:" + "x" * 1000}))
        if k % 10 == 0:
            futures.append(writer.act(ADDRESS, {"type": "emit", "name": f"e{k}"}))
    replies = await asyncio.gather(*futures)
    assert all(reply["type"] == "ack" for reply in replies)
    final = replies[-1]["version"] + 1   # the last action is a set, and every set changes the document
    await reader.ping()   # a resync, if one is owed, is sent once something is written
    await reader.wait_version(ADDRESS, final)
    # A burst's pulses leave after its combined patches, so the frame that carries the final
    # version can come before the last pulses: a pong is written after all of them.
    await reader.ping()
    copy = reader.copy(ADDRESS)
    figures = {"resyncs": copy.resyncs, "patchFrames": copy.patches, "versionsByPatch": copy.versions,
               "pulses": len(reader.pulses), "emits": 30, "finalVersion": final}
    await reader.close()
    await writer.close()
    return figures


def test_a_reader_that_keeps_up_is_not_resynced_by_a_large_coalesced_burst(daemon_factory):
    daemon = daemon_factory(base_config(limits={"actionsPerSecond": 1000000, "actionBurst": 1000000,
                                                "outboundQueueBytes": 65536}))
    figures = asyncio.run(run_large_burst(daemon))
    write_report("large_coalesced_burst", figures)
    assert figures["resyncs"] == 0 and figures["versionsByPatch"] == figures["finalVersion"], figures
    assert figures["pulses"] == figures["emits"], figures
