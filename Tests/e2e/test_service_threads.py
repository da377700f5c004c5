"""`server.threads` (CONFIG.md): how many threads serve sockets, 0 meaning one per CPU core the
process may use. Each has its own libwebsockets context; the first listens and hands every
accepted socket to the thread holding the fewest, where it lives until it closes."""
import asyncio
import json
import os
import pathlib
import subprocess

import websockets

from conftest import BINARY, ROOT, base_config, wait_for
from ops_support import Scrape, http


def service_threads(pid: int) -> list[str]:
    names = []
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        name = (task / "comm").read_text().strip()
        if name.startswith("reactorhub-lws"):
            names.append(name)
    return sorted(names)


def expected_names(count: int) -> list[str]:
    return sorted(["reactorhub-lws"] + [f"reactorhub-lws{index}" for index in range(1, count)])


def test_zero_serves_on_one_thread_per_core_the_process_may_use(daemon_factory, monkeypatch):
    monkeypatch.delenv("REACTORHUB_SERVER_THREADS", raising=False)
    daemon = daemon_factory(base_config(server={"threads": 0}))
    cores = len(os.sched_getaffinity(0))
    # Each thread names itself once it runs: waited for, not assumed at the start line.
    assert wait_for(lambda: service_threads(daemon.process.pid) == expected_names(cores), timeout=60), \
        service_threads(daemon.process.pid)
    printed = subprocess.run([str(BINARY), "--config", str(daemon.config_path), "--print-config"],
                             capture_output=True, text=True, timeout=60, env={k: v for k, v in os.environ.items()
                                                                              if k != "REACTORHUB_SERVER_THREADS"})
    assert json.loads(printed.stdout)["server"] == {"threads": 0, "compression": True}
    samples = Scrape(http(daemon.port, "/metrics").text).family("reactorhub_service_thread_sockets")
    assert sorted(dict(labels)["thread"] for labels, _ in samples.items()) == [str(index) for index in range(cores)]


def test_a_process_pinned_to_one_core_serves_on_one_thread(tmp_path, monkeypatch):
    monkeypatch.delenv("REACTORHUB_SERVER_THREADS", raising=False)
    config = tmp_path / "reactorhub.json"
    config.write_text(json.dumps(base_config()))
    process = subprocess.Popen(["taskset", "-c", "0", str(BINARY), "--config", str(config), "--port", "0"],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               env={k: v for k, v in os.environ.items() if k != "REACTORHUB_SERVER_THREADS"})
    try:
        line = process.stdout.readline().decode()
        assert line.startswith("listening on http://"), line
        assert wait_for(lambda: service_threads(process.pid) == ["reactorhub-lws"], timeout=60), service_threads(process.pid)
    finally:
        process.terminate()
        assert process.wait(60) == 0


def test_four_threads_share_the_sockets_and_every_client_converges(daemon_factory, monkeypatch):
    monkeypatch.delenv("REACTORHUB_SERVER_THREADS", raising=False)
    daemon = daemon_factory(base_config(server={"threads": 4}))
    assert wait_for(lambda: service_threads(daemon.process.pid) == expected_names(4), timeout=60)
    address = "doc/threads"

    async def scenario():
        clients = []
        for _ in range(12):
            ws = await websockets.connect(daemon.url, subprotocols=["reactorhub.v1"], ping_interval=None,
                                          open_timeout=60, proxy=None)
            assert json.loads(await asyncio.wait_for(ws.recv(), 60))["type"] == "hello"
            await ws.send(json.dumps({"type": "join", "reactor": address, "ref": "join"}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if message.get("ref") == "join":
                    assert message["type"] == "snapshot", message
                    break
            clients.append(ws)
        # Twelve sockets (and the scrape's own) over four threads: the fewest first, in turn.
        samples = Scrape(http(daemon.port, "/metrics").text).family("reactorhub_service_thread_sockets")
        assert sorted(samples.values()) == [3, 3, 3, 4]
        for number, ws in enumerate(clients):
            await ws.send(json.dumps({"type": "action", "reactor": address, "ref": f"a{number}",
                                      "action": {"type": "patch", "ops": [{"op": "add", "path": f"/k{number}",
                                                                            "value": number}]}}))
        seen = []
        for ws in clients:
            keys, version, acks = {}, 0, 0
            while version < 12 or acks < 1:
                message = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if message["type"] == "patch":
                    assert message["version"] > version
                    version = message["version"]
                    for op in message["patch"]:
                        assert op["op"] == "add"
                        keys[op["path"]] = op["value"]
                elif message["type"] == "ack":
                    acks += 1
                else:
                    assert message["type"] in ("presence", "pulse"), message
            seen.append(keys)
        for ws in clients:
            await ws.close()
        return seen

    seen = asyncio.run(scenario())
    assert seen == [{f"/k{number}": number for number in range(12)}] * 12
