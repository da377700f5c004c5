"""Leak check on a daemon process of its own: 2,000 connect/close cycles leave its
resident memory flat."""
import asyncio
import json

import websockets


def test_connect_close_cycles_leave_resident_memory_flat(daemon):
    async def cycles(count):
        for index in range(count):
            async with websockets.connect(daemon.url, subprotocols=["reactorhub.v1"]) as ws:
                assert json.loads(await ws.recv())["type"] == "hello"
                await ws.send(json.dumps({"type": "join", "reactor": f"counter/leak{index % 10}", "ref": 1}))
                assert json.loads(await ws.recv())["type"] == "snapshot"

    asyncio.run(cycles(300))  # warm-up: allocator pools, instances, caches
    warm = daemon.rss_bytes()
    asyncio.run(cycles(1700))
    after = daemon.rss_bytes()
    growth = after - warm
    print(f"leak: rss {warm // 1024} KiB after 300 cycles, {after // 1024} KiB after 2000 (+{growth // 1024} KiB)")
    assert growth < 2 * 1024 * 1024, f"resident memory grew by {growth} bytes over 1,700 cycles"
