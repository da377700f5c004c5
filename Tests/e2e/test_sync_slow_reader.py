"""Slow reader: a client that stops reading does not slow the others down, does not make
the daemon's memory grow without bound (its queue is capped by
`limits.outboundQueueBytes`; the server drops its patches), and once it reads again it
gets a fresh unsolicited `snapshot` and converges with the others (PROTOCOL.md, "Slow
clients")."""
import asyncio
import re
import statistics
import time

import pytest

from conftest import base_config
from sync_harness import RssSampler, SyncClient, canonical, fresh_snapshot, mib, write_report

DOC = "doc/slow"
# The server coalesces a long burst (up to 512 changes of one drain) into one frame, and a
# frame larger than the queue limit sheds at once, even for a fast reader (see
# test_sync_coalescing.py); so the limit is set above 512 patches, and each phase sends
# more than the kernel buffers of a stalled socket absorb (~2 MiB) plus the limit.
QUEUE_BYTES = 512 * 1024
PAD = "x" * 700
FLOOD_ACTIONS = 2200          # per flooder and phase: 4,400 patches of ~760 bytes, ~3.3 MB
MEMORY_BOUND = 64 * 1024 * 1024
SLOW_RCVBUF = 4096


def config():
    return base_config(
        limits={"actionsPerSecond": 1000000, "actionBurst": 1000000, "outboundQueueBytes": QUEUE_BYTES},
        reactors={"doc": {"maxBytes": 1048576}},
    )


def log_since(daemon, offset):
    """The daemon's log written after `offset` (the log file is appended to across runs)."""
    with open(daemon.log_path, "rb") as log:
        log.seek(offset)
        return log.read().decode(errors="replace")


def log_size(daemon):
    return daemon.log_path.stat().st_size


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
    return max(reply["version"] for reply in replies)


async def phase(daemon, flooders, fast, until=None, max_rounds=8):
    """One flood (repeated while `until()` is false, as the kernel buffers of a stalled
    socket vary in size); returns the fast clients' mean rate of versions received per
    second, and the final version."""
    start = time.monotonic()
    before = {c.name: c.copy(DOC).version for c in fast}
    for _ in range(max_rounds):
        # every set changes the document, so the last one accepted made version max(ack) + 1
        final = 1 + max(await asyncio.gather(*(flood(c, i, FLOOD_ACTIONS) for i, c in enumerate(flooders))))
        if until is None or until():
            break
    else:
        raise AssertionError(f"still not {until.__doc__} after {max_rounds} floods")
    rates = []
    for client in fast:
        await client.wait_version(DOC, final)
        copy = client.copy(DOC)
        assert copy.resyncs == 0, f"{client.name} lagged"
        rates.append((final - before[client.name]) / (copy.last_patch_at - start))
    return sum(rates) / len(rates), final


async def resume_and_catch_up(slow, final, nudge_after=1.0):
    """Resumes reading and waits until the copy is at `final` (through the unsolicited
    snapshot); if it does not get there (see
    test_lagging_reader_gets_its_snapshot_without_sending_anything), sends a ping.
    Returns whether the ping was needed."""
    slow.resume()
    copy = slow.copy(DOC)
    try:
        await slow.wait_until(lambda: copy.version >= final, nudge_after, "the resync snapshot")
        return False
    except AssertionError:
        await slow.ping()
        await slow.wait_until(lambda: copy.version >= final, 10, "the resync snapshot after a ping")
        return True


async def slow_phase(daemon, flooders, fast, reader, index):
    """A flood with a slow reader joined and not reading; then it reads again and must get
    a snapshot and converge. Returns (fast rate, figures)."""
    slow = SyncClient(daemon.url, f"slow{index}", rcvbuf=SLOW_RCVBUF, max_queue=1, log_events=True)
    offset = log_size(daemon)
    await slow.connect()
    joined = await slow.join(DOC)
    slow.pause()
    rss = RssSampler(daemon)
    base = rss.sample()
    rss.start()
    pattern = re.compile(rf"slow connection: discarded queued updates.*session={slow.session}\b")

    def shed():
        """shed by the server"""
        return bool(pattern.search(log_since(daemon, offset)))

    rate, final = await phase(daemon, flooders, fast, until=shed)
    await asyncio.sleep(0.1)
    await rss.stop()
    held_while_paused = slow.copy(DOC).version

    nudged = await resume_and_catch_up(slow, final)
    copy = slow.copy(DOC)
    assert copy.resyncs >= 1
    resync = next(entry for entry in copy.log if entry[1] == "snapshot" and entry[3] is None)
    before_resync = [entry[2] for entry in copy.log if entry[1] == "patch" and entry[0] < resync[0]]
    held_before_resync = max(before_resync, default=joined["version"])
    epoch, version, state = await fresh_snapshot(daemon.url, DOC)
    await slow.wait_version(DOC, version)
    assert slow.failures == [] and all(c.failures == [] for c in fast)
    assert version == final and copy.version == version and copy.epoch == epoch == joined["epoch"]
    assert canonical(copy.state) == canonical(state) == canonical(reader.copy(DOC).state)
    # it really lagged: the server dropped patches (the snapshot jumps over them) instead
    # of queueing them all
    missed = final - joined["version"] - copy.versions
    assert missed > 0 and resync[2] > held_before_resync
    await slow.close()
    log = log_since(daemon, offset)
    sheds = len(re.findall(rf"slow connection: discarded queued updates.*session={slow.session}\b", log))
    return rate, {
        "rate": round(rate), "rssBaseMiB": mib(base), "rssPeakMiB": mib(rss.peak()), "rssGrowthMiB": mib(rss.peak() - base),
        "heldWhilePaused": held_while_paused, "framesBeforeResync": len(before_resync),
        "heldBeforeResync": held_before_resync,
        "resyncVersion": resync[2], "finalVersion": final, "missedVersions": missed,
        "shedEpisodesLogged": sheds, "resyncNeededPing": nudged,
    }


async def run(daemon, rounds=4):
    started = time.monotonic()
    whole_run = RssSampler(daemon, interval=0.05).start()
    flooders = [SyncClient(daemon.url, f"flooder{i}") for i in range(2)]
    reader = SyncClient(daemon.url, "reader")
    fast = flooders + [reader]
    for client in fast:
        await client.connect()
        await client.join(DOC)
    # alternate phases without and with a slow reader and compare the medians, so that a
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
    await whole_run.stop()
    return {
        "durationSeconds": round(time.monotonic() - started, 2), "daemonRssPeakMiB": mib(whole_run.peak()),
        "actionsSent": (2 * rounds + 1) * 2 * FLOOD_ACTIONS,
        "outboundQueueBytes": QUEUE_BYTES, "slowRcvbuf": SLOW_RCVBUF,
        "actionsPerPhase": 2 * FLOOD_ACTIONS, "patchBytes": len(PAD) + 60,
        "fastRatesWithout": [round(r) for r in rates_without], "fastRatesWithSlow": [round(r) for r in rates_with],
        "throughputRatio": round(statistics.median(rates_with) / statistics.median(rates_without), 3),
        "bestOfRatio": round(max(rates_with) / max(rates_without), 3),
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
    offset = log_size(daemon)
    writer = SyncClient(daemon.url, "writer")
    await writer.connect()
    await writer.join(DOC)
    slow = SyncClient(daemon.url, "slow", rcvbuf=SLOW_RCVBUF, max_queue=1, log_events=True)
    await slow.connect()
    await slow.join(DOC)
    slow.pause()
    pattern = re.compile(rf"slow connection: discarded queued updates.*session={slow.session}\b")
    sent = final = 0
    while not pattern.search(log_since(daemon, offset)):
        assert sent < 20000, "the server never dropped the slow reader's updates"
        final = 1 + await flood(writer, 0, 500)
        sent += 500
    slow.resume()   # and send nothing
    copy = slow.copy(DOC)
    try:
        await slow.wait_until(lambda: copy.version >= final, 3, "a snapshot at the final version")
    finally:
        await slow.close()
        await writer.close()
    assert copy.resyncs >= 1 and slow.failures == []


def test_lagging_reader_gets_its_snapshot_without_sending_anything(daemon_factory):
    daemon = daemon_factory(config())
    asyncio.run(run_minimal_lag(daemon))
