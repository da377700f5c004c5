"""The demo page through the shipped load balancer (config/haproxy.cfg, Debian's haproxy) in
front of three nodes (config/cluster.json's settings) on a redis-server of the test's own, all
on free loopback ports, in Chromium: the node the page is connected to is killed, the page
reconnects through haproxy to another node, keeps its counter and acts on."""
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid

import pytest

from browser_support import OUTPUT, ROOT, Daemon, websocket_failure

HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"

pytestmark = pytest.mark.skipif(not (os.path.exists(HAPROXY) and os.path.exists(REDIS)),
                                reason="needs haproxy and redis-server (scripts/ensure-deps.sh test)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def until(predicate, what, timeout=30.0):
    """Polls `predicate` until it holds; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def answers(port: int, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


@pytest.fixture(scope="module")
def balanced():
    """(haproxy's port, {node id: Daemon}); everything stopped afterwards."""
    work = tempfile.mkdtemp(prefix="rh-browser-cluster-")
    redis_port = free_port()
    redis = subprocess.Popen([REDIS, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                              "--dir", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    nodes, proxy = {}, None
    try:
        until(lambda: redis.poll() is not None or answers_ping(redis_port), "redis-server")
        assert redis.poll() is None, "redis-server did not start"
        shipped = json.loads((ROOT / "config" / "cluster.json").read_text())
        for index in (1, 2, 3):
            config = {**shipped, "cluster": {**shipped["cluster"], "redis": f"127.0.0.1:{redis_port}", "nodeId": f"node{index}"},
                      "reactors": {**shipped["reactors"], "counter": {"delayMs": 50},
                                   "weather": {**shipped["reactors"]["weather"], "dataFile": str(ROOT / "config" / "weather.json")}}}
            nodes[f"node{index}"] = Daemon(config, pathlib.Path(work), f"cluster-node{index}")
        port = free_port()
        env = {**os.environ, "RH_LISTEN": f"127.0.0.1:{port}"}
        for index, node in enumerate(nodes.values(), start=1):
            env[f"RH_NODE{index}"] = f"127.0.0.1:{node.port}"
        proxy = subprocess.Popen([HAPROXY, "-db", "-f", str(ROOT / "config" / "haproxy.cfg")], env=env,
                                 stdout=open(OUTPUT / "browser-haproxy.log", "ab"), stderr=subprocess.STDOUT)
        until(lambda: proxy.poll() is not None or answers(port, "/readyz") == 200, "haproxy passing /readyz through")
        assert proxy.poll() is None, "haproxy exited: see test-output/browser-haproxy.log"
        yield port, nodes
    finally:
        if proxy and proxy.poll() is None:
            proxy.send_signal(signal.SIGTERM)
            proxy.wait(15)
        for node in nodes.values():
            node.stop()
        redis.kill()
        redis.wait()
        shutil.rmtree(work, ignore_errors=True)


def answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture
def allowed_console_errors(balanced):
    # While the killed node's connection is re-established, Chromium may log a failed attempt.
    port, _ = balanced
    return [websocket_failure(port)]


def test_a_page_whose_node_died_reconnects_through_haproxy_to_another(balanced, browsers):
    port, nodes = balanced
    page, _ = browsers
    room = f"cluster-{uuid.uuid4().hex[:6]}"
    try:
        page.driver.get("about:blank")
        page.driver.get(f"http://127.0.0.1:{port}/#room={room}")
        page.wait_status("open", timeout=30)
        page.wait(lambda _: page.version("counter") is not None, "the counter's state", 30)
        first = page.driver.execute_script("return window.reactorhubDemo.client.hello.node")
        assert first in nodes
        page.find("counter-plus").click()
        page.wait_text("counter-value", "1", timeout=30)
        page.wait(lambda _: page.version("counter") == 3, "counter v3", 30)
        epoch = page.attr("version-counter", "title")

        nodes[first].kill()
        page.wait(lambda _: page.status() == "open" and page.driver.execute_script(
            "return window.reactorhubDemo.client.hello?.node") not in (None, first), "a connection to another node", 60)
        assert page.text("connection-status") == "Connected"
        assert page.text("counter-value") == "1"
        assert page.attr("version-counter", "title") == epoch  # resumed: the same epoch
        # Until another node owns the instance, an action is answered `overloaded` (its message in
        # the card, an error frame in the live log): the click is made again.
        errors = "return document.querySelectorAll('[data-testid=frame-log-entry][data-direction=in][data-type=error]').length"
        for _ in range(20):
            before = page.driver.execute_script(errors)
            page.find("counter-plus").click()
            page.wait(lambda _: page.text("counter-value") == "2" or page.driver.execute_script(errors) > before,
                      "the click's ack or its refusal", 30)
            if page.text("counter-value") == "2":
                break
        page.wait_text("counter-value", "2", timeout=30)
        page.screenshot("cluster-page-after-failover")
    finally:
        # Leave the page before haproxy stops: its reconnects would fill the next test's console.
        page.driver.get("about:blank")
