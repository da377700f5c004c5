"""Slow reader: a client that stops reading does not slow the others down, does not make
the daemon's memory grow without bound (its queue is capped by
`limits.outboundQueueBytes`; the server drops its patches), and once it reads again it
gets a fresh unsolicited `snapshot` and converges with the others (PROTOCOL.md, "Slow
clients")."""
import asyncio
import re
import time

import pytest

from conftest import base_config
from sync_harness import RssSampler, SyncClient, canonical, fresh_snapshot, mib, write_report

DOC = "doc/slow"
QUEUE_BYTES = 64 * 1024
FLOOD_ACTIONS = 1500          # per flooder and phase; 2 x 1500 patches of ~1 KiB = ~3 MiB,
PAD = "x" * 1000              # more than the kernel buffers of a stalled socket (~2 MiB)
MEMORY_BOUND = 64 * 1024 * 1024
SLOW_RCVBUF = 4096


def config():
    return base_config(
        limits={"actionsPerSecond": 1000000, "actionBurst": 1000000, "outboundQueueBytes": QUEUE_BYTES},
        reactors={"doc": {"maxBytes": 1048576}},
    )


async def flood(client, index, count, window=16):
    in_flight = asyncio.Semaphore(window)
    futures = []
    for k in range(count):
        await in_flight.acquire()
        future = client.act(DOC, {"type": "set", "path": f"/f{index}", "value": f"{k}:{PAD}"})
        future.add_done_callback(lambda _: in_flight.release())
        futures.append(future)
    replies = await asyncio.gather(*futures)
    assert all(reply["type"] == "ack" for reply in replies)


async def phase(daemon, flooders, fast):
    """One flood; returns the fast clients' mean rate of versions received per second."""
    start = time.monotonic()
    before = {c.name: c.copy(DOC).version for c in fast}
    await asyncio.gather(*(flood(c, i, FLOOD_ACTIONS) for i, c in enumerate(flooders)))
    _, final, _ = await fresh_snapshot(daemon.url, DOC)
    rates = []
    for client in fast:
        await client.wait_version(DOC, final)
        copy = client.copy(DOC)
        assert copy.resyncs == 0, f"{client.name} lagged"
        rates.append((final - before[client.name]) / (copy.last_patch_at - start))
    return sum(rates) / len(rates), final


async def resume_and_wait_for_resync(slow, nudge_after=1.0):
    """Resumes reading; waits for the unsolicited snapshot, and if it does not come (see
    test_lagging_reader_gets_its_snapshot_without_sending_anything) sends a ping."""
    slow.resume()
    copy = slow.copy(DOC)
    try:
        await slow.wait_until(lambda: copy.resyncs >= 1, nudge_after, "the resync snapshot")
        return False
    except AssertionError:
        await slow.ping()
        await slow.wait_until(lambda: copy.resyncs >= 1, 10, "the resync snapshot after a ping")
        return True


async def slow_phase(daemon, flooders, fast, reader, index):
    """A flood with a slow reader joined and not reading; then it reads again and must get
    a snapshot and converge. Returns (fast rate, figures)."""
    slow = SyncClient(daemon.url, f"slow{index}", rcvbuf=SLOW_RCVBUF, max_queue=1, log_events=True)
    await slow.connect()
    joined = await slow.join(DOC)
    slow.pause()
    rss = RssSampler(daemon)
    base = rss.sample()
    rss.start()
    rate, final = await phase(daemon, flooders, fast)
    await asyncio.sleep(0.1)
    await rss.stop()
    held_while_paused = slow.copy(DOC).version

    nudged = await resume_and_wait_for_resync(slow)
    copy = slow.copy(DOC)
    resync = next(entry for entry in copy.log if entry[1] == "snapshot" and entry[3] is None)
    patches_before_resync = sum(1 for entry in copy.log if entry[1] == "patch" and entry[0] < resync[0])
    epoch, version, state = await fresh_snapshot(daemon.url, DOC)
    await slow.wait_version(DOC, version)
    assert slow.failures == [] and all(c.failures == [] for c in fast)
    assert version == final and copy.version == version and copy.epoch == epoch == joined["epoch"]
    assert canonical(copy.state) == canonical(state) == canonical(reader.copy(DOC).state)
    # it really lagged: the server dropped patches instead of queueing them all
    missed = final - joined["version"] - copy.patches
    assert missed > 0 and resync[2] > joined["version"] + patches_before_resync
    await slow.close()
    log = daemon.log_path.read_text(errors="replace")
    sheds = len(re.findall(rf"slow connection: discarded queued updates.*session={slow.session}\b", log))
    return rate, {
        "rate": round(rate), "rssBaseMiB": mib(base), "rssPeakMiB": mib(rss.peak()), "rssGrowthMiB": mib(rss.peak() - base),
        "heldWhilePaused": held_while_paused, "patchesBeforeResync": patches_before_resync,
        "resyncVersion": resync[2], "finalVersion": final, "missedVersions": missed,
        "shedEpisodesLogged": sheds, "resyncNeededPing": nudged,
    }


async def run(daemon, rounds=3):
    flooders = [SyncClient(daemon.url, f"flooder{i}") for i in range(2)]
    reader = SyncClient(daemon.url, "reader")
    fast = flooders + [reader]
    for client in fast:
        await client.connect()
        await client.join(DOC)
    # alternate phases without and with a slow reader; compare the best of each, so that a
    # burst of load from elsewhere on the machine does not decide the ratio
    rates_without, rates_with, slow_figures = [], [], []
    for index in range(rounds):
        rates_without.append((await phase(daemon, flooders, fast))[0])
        rate, figures = await slow_phase(daemon, flooders, fast, reader, index)
        rates_with.append(rate)
        slow_figures.append(figures)
    rates_without.append((await phase(daemon, flooders, fast))[0])
    for client in fast:
        await client.close()
    return {
        "outboundQueueBytes": QUEUE_BYTES, "slowRcvbuf": SLOW_RCVBUF,
        "actionsPerPhase": 2 * FLOOD_ACTIONS, "patchBytes": len(PAD) + 60,
        "fastRatesWithout": [round(r) for r in rates_without], "fastRatesWithSlow": [round(r) for r in rates_with],
        "throughputRatio": round(max(rates_with) / max(rates_without), 3),
        "medianRatio": round(sorted(rates_with)[len(rates_with) // 2] / sorted(rates_without)[len(rates_without) // 2], 3),
        "rssGrowthMiBMax": max(f["rssGrowthMiB"] for f in slow_figures),
        "rssPeakMiBMax": max(f["rssPeakMiB"] for f in slow_figures),
        "slowPhases": slow_figures,
    }


def test_slow_reader_does_not_slow_others_and_memory_stays_bounded(daemon_factory):
    daemon = daemon_factory(config())
    figures = asyncio.run(run(daemon))
    write_report("slow_reader", figures)
    assert figures["throughputRatio"] >= 0.7, figures
    assert figures["rssGrowthMiBMax"] * 1048576 < MEMORY_BOUND, figures


async def run_minimal_lag(daemon):
    writer = SyncClient(daemon.url, "writer")
    await writer.connect()
    await writer.join(DOC)
    slow = SyncClient(daemon.url, "slow", rcvbuf=SLOW_RCVBUF, max_queue=1, log_events=True)
    await slow.connect()
    await slow.join(DOC)
    slow.pause()
    pattern = re.compile(rf"slow connection: discarded queued updates.*session={slow.session}\b")
    sent = 0
    while not pattern.search(daemon.log_path.read_text(errors="replace")):
        assert sent < 20000, "the server never dropped the slow reader's updates"
        await flood(writer, 0, 500)
        sent += 500
    _, final, _ = await fresh_snapshot(daemon.url, DOC)
    slow.resume()   # and send nothing
    copy = slow.copy(DOC)
    try:
        await slow.wait_until(lambda: copy.resyncs >= 1, 3, "the resync snapshot")
    finally:
        held = copy.version
        await slow.close()
        await writer.close()
    assert copy.version == final and slow.failures == []
    return held


@pytest.mark.xfail(strict=True, reason=(
    "daemon bug: a connection whose shed emptied its outbound queue never asks for its resync "
    "(ServerCore.writable returns early on an empty queue without takeResyncRequest, and later "
    "updates of the lagging stream are discarded without requesting a write), so a reader that "
    "sends nothing stays stale for ever; any reply (e.g. a pong) unblocks it"))
def test_lagging_reader_gets_its_snapshot_without_sending_anything(daemon_factory):
    daemon = daemon_factory(config())
    asyncio.run(run_minimal_lag(daemon))
