"""The daemon's memory reaches a plateau under a steady stream of actions: after a warm-up,
thousands more accepted actions on an instance of constant size do not grow its RSS."""
import asyncio

import pytest

from conftest import base_config
from sync_harness import SyncClient, mib, write_report

MEMBERS = 100
WARMUP = 2000
MEASURED = 6000
BOUND = 8 * 1024 * 1024


async def emits(client, address, count, window=32):
    in_flight = asyncio.Semaphore(window)
    futures = []
    for k in range(count):
        await in_flight.acquire()
        future = client.act(address, {"type": "emit", "name": "tick", "value": k})
        future.add_done_callback(lambda _: in_flight.release())
        futures.append(future)
    replies = await asyncio.gather(*futures)
    assert all(reply["type"] == "ack" for reply in replies)


async def run(daemon):
    address = "doc/plateau"
    client = SyncClient(daemon.url, "emitter")
    await client.connect()
    await client.join(address)
    reply = await client.act(address, {"type": "set", "path": "", "value": {f"m{k}": k for k in range(MEMBERS)}})
    assert reply["type"] == "ack"
    await emits(client, address, WARMUP)
    await asyncio.sleep(0.2)
    before = daemon.rss_bytes()
    await emits(client, address, MEASURED)
    await asyncio.sleep(0.2)
    after = daemon.rss_bytes()
    assert client.failures == [] and len(client.pulses) == WARMUP + MEASURED
    await client.close()
    return {"members": MEMBERS, "actionsSent": WARMUP + MEASURED + 1, "measuredActions": MEASURED, "rssBeforeMiB": mib(before), "rssAfterMiB": mib(after),
            "bytesPerAction": round((after - before) / MEASURED)}


def test_memory_plateaus_under_steady_accepted_actions(daemon_factory):
    daemon = daemon_factory(base_config(limits={"actionsPerSecond": 1000000, "actionBurst": 1000000}))
    figures = asyncio.run(run(daemon))
    write_report("memory_plateau", figures)
    assert figures["rssAfterMiB"] * 1048576 - figures["rssBeforeMiB"] * 1048576 < BOUND, figures
