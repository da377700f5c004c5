"""Fixtures for the cluster suites: one `redis-server` on a free loopback port started
here (never one the tests did not start), and several daemons sharing it."""
import asyncio
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest

from conftest import OUTPUT, Daemon, base_config, wait_for
from sync_harness import SyncClient, barrier, canonical, fresh_snapshot

LEASE_MS = 1500


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisProcess:
    """A redis-server without persistence on 127.0.0.1:PORT; `extra` arguments follow
    (`--replicaof 127.0.0.1 PORT`, `--replica-priority 0`)."""

    def __init__(self, name: str, extra: tuple[str, ...] = ()):
        self.port = free_port()
        self.name = name
        self.extra = extra
        self.process = None
        self.workdir = pathlib.Path(tempfile.mkdtemp(prefix="rh-redis-"))
        self.start()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, same_port: bool = False) -> None:
        """Starts the server; it is up once the server that answers on the port reports
        this process's id. A free port can be handed to another test's redis-server too;
        ours then cannot bind and exits, and the test would share the other one and lose it
        when its owner stops. Another port is tried then, unless the port must stay."""
        binary = shutil.which("redis-server") or "/usr/bin/redis-server"
        OUTPUT.mkdir(parents=True, exist_ok=True)
        for _ in range(8):
            with open(OUTPUT / f"{self.name}-redis.log", "ab") as log:
                self.process = subprocess.Popen(
                    [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                     "--dir", str(self.workdir), *self.extra],
                    stdout=log, stderr=log,
                )
            wait_for(lambda: self.process.poll() is not None or self.answering_pid() is not None, timeout=20)
            if self.answering_pid() == self.process.pid:
                return
            self.process.kill()
            self.process.wait()
            if same_port:
                break
            self.port = free_port()
        raise AssertionError(f"redis-server did not start on a port of its own (last tried {self.port})")

    def answering_pid(self):
        """The process id of the redis-server answering on the port (`INFO server`), or None."""
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"INFO server\r\n")
                reply = b""
                while b"\r\n" not in reply.partition(b"process_id:")[2]:
                    chunk = sock.recv(65536)
                    if not chunk:
                        return None
                    reply += chunk
                return int(reply.partition(b"process_id:")[2].split(b"\r\n", 1)[0])
        except (OSError, ValueError):
            return None

    def command(self, *args: str) -> bytes:
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as sock:
            parts = [f"*{len(args)}\r\n".encode()]
            for arg in args:
                data = arg.encode()
                parts.append(f"${len(data)}\r\n".encode() + data + b"\r\n")
            sock.sendall(b"".join(parts))
            return sock.recv(65536)

    def restart_empty(self) -> None:
        """Kills the server and starts a new one on the same port: all data is gone."""
        self.process.kill()
        self.process.wait()
        self.start(same_port=True)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)


def cluster_config(redis: RedisProcess, node: str, prefix: str, lease_ms: int = LEASE_MS, **overrides) -> dict:
    config = base_config(
        limits={"actionsPerSecond": 100000, "actionBurst": 100000},
        cluster={"redis": redis.address, "nodeId": node, "leaseMs": lease_ms, "keyPrefix": prefix},
        shutdownGraceMs=2000,
    )
    config.update(overrides)
    return config


class Cluster:
    """One Redis and the daemons on it; `nodes[i]` is node `n{i}`."""

    def __init__(self, factory, redis: RedisProcess, name: str, count: int, lease_ms: int, **overrides):
        self.factory = factory
        self.redis = redis
        self.name = name
        self.prefix = f"rh{os.getpid()}x{abs(hash(name)) % 100000}"
        self.lease_ms = lease_ms
        self.overrides = overrides
        self.nodes = [self.start_node(i) for i in range(count)]

    def start_node(self, index: int, generation: int = 0) -> Daemon:
        node = f"n{index}" if generation == 0 else f"n{index}g{generation}"
        config = cluster_config(self.redis, node, self.prefix, self.lease_ms, **self.overrides)
        return self.factory(config, name=f"{self.name}-{node}")

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]


@pytest.fixture
def redis_server(request):
    server = RedisProcess(request.node.name)
    yield server
    server.stop()


@pytest.fixture
def cluster_factory(daemon_factory, redis_server, request):
    def start(count: int = 3, lease_ms: int = LEASE_MS, **overrides) -> Cluster:
        return Cluster(daemon_factory, redis_server, request.node.name, count, lease_ms, **overrides)
    return start


def stop_process(daemon: Daemon) -> None:
    daemon.process.send_signal(signal.SIGSTOP)


def continue_process(daemon: Daemon) -> None:
    daemon.process.send_signal(signal.SIGCONT)


def owned(node) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{node.port}/metrics", timeout=5) as response:
        for line in response.read().decode().splitlines():
            if line.startswith("reactorhub_cluster_owned_instances"):
                return int(float(line.split()[-1]))
    return 0


async def observe(urls, address):
    observers = [SyncClient(url, f"o{i}") for i, url in enumerate(urls)]
    for observer in observers:
        await observer.connect()
        assert (await observer.join(address))["type"] == "snapshot"
    assert (await observers[-1].act(address, {"type": "set", "path": "/log", "value": []}))["type"] == "ack"
    return observers


async def converged(observers, address, url, via):
    # A node's replica may trail another's by a moment: the fresh snapshot is taken on the
    # node that delivered the barrier to `via` (`url` only names the run's choice).
    await barrier(via, address)
    epoch, version, state = await fresh_snapshot(via.url, address)
    for observer in observers:
        await observer.wait_version(address, version, timeout=30)
        copy = observer.copy(address)
        assert copy.epoch == epoch and copy.version == version, (observer.name, copy.epoch, copy.version, epoch, version)
        assert canonical(copy.state) == canonical(state), f"{observer.name} diverged"
    return epoch, version, state


def no_fork(observers):
    merged = {}
    for observer in observers:
        for key, text in observer.patch_texts.items():
            assert merged.setdefault(key, text) == text, f"{observer.name}: two different patches for {key}"
    return len(merged)


async def wait_acks(writers, count, timeout=30):
    deadline = time.monotonic() + timeout
    while sum(len(w.acked) for w in writers) < count:
        assert time.monotonic() < deadline, "writers made no progress"
        await asyncio.sleep(0.02)
