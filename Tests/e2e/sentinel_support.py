"""Redis that fails over by itself, for the Sentinel suites (shared/CLUSTER.md "Redis itself
fails over"): Debian's `redis-server` as a master, its replica and a replica of that replica
(`replica-priority 0`, so that a promoted master still has one), and three `redis-sentinel`
processes, all on free loopback ports started here and checked to be our own (never a
server the tests did not start)."""
import asyncio
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

from cluster_support import RedisProcess, free_port
from conftest import OUTPUT, base_config, wait_for

MASTER_NAME = "mymaster"
LEASE_MS = 1500
# Each server starts a full synchronisation at once (the default waits 5 s for more replicas).
SERVER_OPTIONS = ("--repl-diskless-sync-delay", "0")


def resp(port: int, *args: str, timeout: float = 5):
    """Sends one command to 127.0.0.1:`port` and returns the reply, parsed (RESP2): bytes,
    int, list, None, or a RuntimeError for an error reply."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        parts = [f"*{len(args)}\r\n".encode()]
        for arg in args:
            data = arg.encode() if isinstance(arg, str) else arg
            parts.append(f"${len(data)}\r\n".encode() + data + b"\r\n")
        sock.sendall(b"".join(parts))
        return _read(sock.makefile("rb"))


def _read(stream):
    line = stream.readline()
    if not line:
        raise ConnectionError("connection closed")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest
    if kind == b"-":
        return RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        length = int(rest)
        if length < 0:
            return None
        data = stream.read(length + 2)
        return data[:-2]
    if kind == b"*":
        count = int(rest)
        return None if count < 0 else [_read(stream) for _ in range(count)]
    raise ConnectionError(f"not RESP: {line!r}")


def info(port: int, section: str) -> dict[str, str]:
    """`INFO section` as a dictionary."""
    text = resp(port, "INFO", section).decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line and not line.startswith("#"))


def clients(port: int) -> list[dict[str, str]]:
    """`CLIENT LIST`, one dictionary per connection."""
    return [dict(field.split("=", 1) for field in line.split(" ") if "=" in field)
            for line in resp(port, "CLIENT", "LIST").decode().splitlines()]


def script_calls(port: int) -> int:
    """How many EVAL and EVALSHA this server ran for its clients (a replica applies its
    master's scripts as their effects, never as scripts)."""
    stats = info(port, "commandstats")
    return sum(int(stats.get(name, "calls=0").split(",")[0].split("=")[1]) for name in ("cmdstat_eval", "cmdstat_evalsha"))


class SentinelProcess:
    """A redis-sentinel on 127.0.0.1:`port` (free a moment ago) watching the master."""

    def __init__(self, name: str, port: int, master_port: int, failover_timeout_ms: int = 4000, down_after_ms: int = 2000):
        self.name = name
        self.port = port
        self.master_port = master_port
        self.failover_timeout_ms = failover_timeout_ms
        self.down_after_ms = down_after_ms
        self.workdir = pathlib.Path(tempfile.mkdtemp(prefix="rh-sentinel-"))
        self.process = None

    def start(self) -> None:
        binary = shutil.which("redis-sentinel")
        if binary is None:
            pytest.fail("redis-sentinel is not installed (scripts/ensure-deps.sh test installs Debian's redis-sentinel)")
        config = self.workdir / "sentinel.conf"
        config.write_text("\n".join([
            f"port {self.port}", "bind 127.0.0.1", f"dir {self.workdir}", "sentinel resolve-hostnames no",
            f"sentinel monitor {MASTER_NAME} 127.0.0.1 {self.master_port} 2",
            f"sentinel down-after-milliseconds {MASTER_NAME} {self.down_after_ms}",
            f"sentinel failover-timeout {MASTER_NAME} {self.failover_timeout_ms}",
            f"sentinel parallel-syncs {MASTER_NAME} 2", "",
        ]))
        OUTPUT.mkdir(parents=True, exist_ok=True)
        with open(OUTPUT / f"{self.name}.log", "ab") as log:
            self.process = subprocess.Popen([binary, str(config)], stdout=log, stderr=log)
        assert wait_for(lambda: self.process.poll() is not None or self.answering_pid() is not None, timeout=20)
        if self.answering_pid() != self.process.pid:
            self.stop()
            raise AssertionError(f"redis-sentinel did not start on port {self.port} of its own")

    def answering_pid(self):
        try:
            return int(info(self.port, "server")["process_id"])
        except (OSError, ConnectionError, KeyError, ValueError, AttributeError):
            return None

    def master(self):
        """The master this sentinel names now: `HOST:PORT`, or None."""
        try:
            reply = resp(self.port, "SENTINEL", "get-master-addr-by-name", MASTER_NAME, timeout=1)
        except OSError:
            return None
        return f"{reply[0].decode()}:{reply[1].decode()}" if isinstance(reply, list) else None

    def knows_everyone(self, servers: int) -> bool:
        """Whether it found the two other sentinels and `servers` replicas."""
        try:
            sentinels = resp(self.port, "SENTINEL", "sentinels", MASTER_NAME, timeout=1)
            replicas = resp(self.port, "SENTINEL", "replicas", MASTER_NAME, timeout=1)
        except OSError:
            return False
        return isinstance(sentinels, list) and len(sentinels) == 2 and isinstance(replicas, list) and len(replicas) >= servers

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.workdir, ignore_errors=True)


class Topology:
    """A master, its replica, a replica of that replica (priority 0) and three sentinels.
    `sentinels` are not started until `start_sentinels()` when `sentinels_now` is false, so
    that a daemon can be seen starting before them."""

    def __init__(self, name: str, sentinels_now: bool = True, failover_timeout_ms: int = 4000, down_after_ms: int = 2000):
        self.name = name
        self.servers: list[RedisProcess] = []
        self.sentinels: list[SentinelProcess] = []
        master = RedisProcess(f"{name}-m", extra=SERVER_OPTIONS)
        self.servers.append(master)
        replica = RedisProcess(f"{name}-r1", extra=(*SERVER_OPTIONS, "--replicaof", "127.0.0.1", str(master.port)))
        self.servers.append(replica)
        self.servers.append(RedisProcess(f"{name}-r2", extra=(
            *SERVER_OPTIONS, "--replicaof", "127.0.0.1", str(replica.port), "--replica-priority", "0")))
        # A sentinel fails the same master over again only 2 × failover-timeout later; a
        # master that does not answer for down-after-milliseconds is down (2 s: a loaded
        # machine must not make the sentinels fail over a master that is merely slow).
        self.sentinels = [SentinelProcess(f"{name}-s{i}", free_port(), master.port, failover_timeout_ms, down_after_ms)
                          for i in range(3)]
        assert wait_for(lambda: all(info(s.port, "replication").get("master_link_status") == "up" for s in self.servers[1:]),
                        timeout=30), "the replicas did not synchronise"
        if sentinels_now:
            self.start_sentinels()

    @property
    def addresses(self) -> list[str]:
        return [f"127.0.0.1:{sentinel.port}" for sentinel in self.sentinels]

    def start_sentinels(self) -> None:
        for sentinel in self.sentinels:
            sentinel.start()
        # A failover needs the sentinels to know each other (hello messages, every 2 s).
        assert wait_for(lambda: all(s.knows_everyone(1) for s in self.sentinels), timeout=30), \
            "the sentinels did not discover each other and the replica"

    def agreed(self):
        """The master every sentinel names now, or None."""
        names = {sentinel.master() for sentinel in self.sentinels}
        return names.pop() if len(names) == 1 else None

    def named(self):
        """The master a majority of the sentinels names now, or None."""
        names = [sentinel.master() for sentinel in self.sentinels]
        for name in set(names):
            if name is not None and names.count(name) >= 2:
                return name
        return None

    def server(self, address: str) -> RedisProcess:
        return next(server for server in self.servers if server.address == address)

    def master(self) -> RedisProcess:
        return self.server(self.named())

    def promotable(self, server: RedisProcess) -> bool:
        """Whether every sentinel knows `server` as a healthy replica, linked to its master."""
        for sentinel in self.sentinels:
            try:
                replicas = resp(sentinel.port, "SENTINEL", "replicas", MASTER_NAME, timeout=1)
            except OSError:
                return False
            fields = [dict(zip(r[::2], r[1::2])) for r in replicas] if isinstance(replicas, list) else []
            if not any(f.get(b"port") == str(server.port).encode() and f.get(b"flags") == b"slave"
                       and f.get(b"master-link-status") == b"ok" for f in fields):
                return False
        return True

    def replicas_of(self, master: RedisProcess) -> list[RedisProcess]:
        """The servers that replicate `master` directly, with their link up."""
        return [server for server in self.servers if server is not master and server.process.poll() is None
                and info(server.port, "replication").get("master_port") == str(master.port)
                and info(server.port, "replication").get("master_link_status") == "up"]

    def stop(self) -> None:
        for server in self.servers:
            if server.process and server.process.poll() is None:
                os.kill(server.process.pid, signal.SIGCONT)
        for sentinel in self.sentinels:
            sentinel.stop()
        for server in self.servers:
            server.stop()


class SwitchWatcher:
    """Listens to `+switch-master` on every sentinel and keeps (time, sentinel, payload) of
    each: the moment a majority of them named the new master is when the second one spoke."""

    def __init__(self, ports: list[int], logs: list[pathlib.Path] = ()):
        self.ports = ports
        # The sentinels' log files: their last lines go into a timeout's message.
        self.logs = list(logs)
        self.events: list[tuple[float, int, str]] = []
        self._tasks: list[asyncio.Task] = []

    async def start(self) -> "SwitchWatcher":
        ready = []
        for index, port in enumerate(self.ports):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"*2\r\n$9\r\nSUBSCRIBE\r\n$14\r\n+switch-master\r\n")
            await writer.drain()
            await _read_async(reader)  # the confirmation
            ready.append((index, reader, writer))
        for index, reader, writer in ready:
            self._tasks.append(asyncio.create_task(self._listen(index, reader, writer)))
        return self

    async def _listen(self, index, reader, writer) -> None:
        try:
            while True:
                message = await _read_async(reader)
                if isinstance(message, list) and len(message) == 3 and message[0] == b"message":
                    self.events.append((time.monotonic(), index, message[2].decode()))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    def named_at(self, old: str) -> tuple[float, str] | None:
        """When a majority of the sentinels had named the master that replaced `old`, and it."""
        new_address = {}
        for at, index, payload in self.events:
            name, old_host, old_port, new_host, new_port = payload.split(" ")
            if f"{old_host}:{old_port}" == old:
                new_address.setdefault(index, (at, f"{new_host}:{new_port}"))
        if len(new_address) < 2:
            return None
        ordered = sorted(new_address.values())
        return ordered[1]

    async def wait_named(self, old: str, timeout: float = 60) -> tuple[float, str]:
        deadline = time.monotonic() + timeout
        while (named := self.named_at(old)) is None:
            if time.monotonic() >= deadline:
                tails = "\n".join(f"--- {log.name}\n" + "".join(log.read_text(errors="replace").splitlines(True)[-25:])
                                  for log in self.logs if log.exists())
                raise AssertionError(f"the sentinels did not replace {old} within {timeout} s: {self.events}\n{tails}")
            await asyncio.sleep(0.02)
        return named

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


async def _read_async(reader):
    line = await reader.readline()
    if not line:
        raise ConnectionError("closed")
    kind, rest = line[:1], line[1:-2]
    if kind == b"*":
        return [await _read_async(reader) for _ in range(int(rest))]
    if kind == b"$":
        length = int(rest)
        return None if length < 0 else (await reader.readexactly(length + 2))[:-2]
    if kind == b":":
        return int(rest)
    return rest


def sentinel_config(topology: Topology, node: str, prefix: str, min_replicas: int, **overrides) -> dict:
    config = base_config(
        limits={"actionsPerSecond": 100000, "actionBurst": 100000},
        cluster={"sentinels": topology.addresses, "masterName": MASTER_NAME, "nodeId": node, "leaseMs": LEASE_MS,
                 "keyPrefix": prefix, "minReplicas": min_replicas},
        shutdownGraceMs=2000,
    )
    config.update(overrides)
    return config


@pytest.fixture
def topology_factory(request):
    started = []

    def start(sentinels_now: bool = True) -> Topology:
        topology = Topology(request.node.name, sentinels_now)
        started.append(topology)
        return topology

    yield start
    for topology in started:
        topology.stop()
