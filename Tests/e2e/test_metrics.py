"""`GET /metrics`, `GET /readyz` and the alert rules, proven with a real Prometheus (Debian's
`prometheus` package, scripts/ensure-deps.sh test) scraping a real daemon every second:
after known traffic, Prometheus' query API returns the exact counts (docs/operations.md
lists every metric); `promtool` accepts the exposition and the rules, and the rules' unit
tests pass; `/readyz` turns 503 `shutting down` during a SIGTERM drain."""
import asyncio
import json
import os
import signal
import time

import pytest
import websockets

from ops_support import (PROMETHEUS, PROMTOOL, ROOT, RULES, Prometheus, Scrape, base_config, http, labels, promtool, scrape,
                         wait_until)
from sync_harness import SyncClient, barrier, write_report

DOC = "doc/metrics"
FLOOD = "doc/flood"
COUNTER = "counter/metrics"
QUEUE_BYTES = 64 * 1024        # limits.outboundQueueBytes: the slow reader is shed past it
PAD = "x" * 8000               # each flood patch is ~8 KB
FLOOD_PATHS = 16               # the flooded document stays at ~128 KB: each action encodes it
FLOOD_ROUND = 150              # actions between two looks at the daemon's counters
FLOOD_ROUNDS = 60              # at most ~72 MB of patches before giving up
SLOW_RCVBUF = 4096
KINDS = ["counter", "weather", "todo", "doc"]
CLOSE_CODES = ["1000", "1001", "1003", "1006", "1007", "1008", "1009", "1011", "1013", "other"]
ERROR_CODES = ["bad_json", "bad_request", "unknown_reactor", "invalid_reactor", "unknown_action", "invalid_action",
               "not_joined", "forbidden", "unauthenticated", "rate_limited", "too_many_joins", "overloaded", "internal",
               "other"]


@pytest.fixture(autouse=True)
def needs_prometheus():
    assert PROMETHEUS and PROMTOOL, "prometheus and promtool are missing: run scripts/ensure-deps.sh test"


@pytest.fixture
def prometheus_factory(request):
    started = []

    def start(daemon, **options):
        server = Prometheus([daemon.port], request.node.name, **options)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def traffic_config():
    return base_config(
        limits={"actionsPerSecond": 1000000, "actionBurst": 1000000, "outboundQueueBytes": QUEUE_BYTES},
        reactors={"counter": {"delayMs": 50}, "weather": {"latencyMs": 50}},
        # A reader that stops reading answers no ping: not dropped for that on a slow machine.
        keepalive={"pingSeconds": 3600, "timeoutSeconds": 7200},
    )


class Tally:
    """What the test did, counted on the client side: the expected values of the counters."""

    def __init__(self):
        self.connections = 0
        self.joins = 0               # joins answered with a snapshot
        self.doc_accepted = 0
        self.doc_refused = 0
        self.counter_accepted = 0
        self.mutate_refusals = 0     # refused by the reactor's mutate (timed like acks)
        self.errors = {code: 0 for code in ERROR_CODES}
        self.clients: list[SyncClient] = []

    async def client(self, daemon, name, **options) -> SyncClient:
        client = SyncClient(daemon.url, name, **options)
        await client.connect()
        self.connections += 1
        self.clients.append(client)
        return client

    async def join(self, client, address, **options):
        reply = await client.join(address, **options)
        assert reply["type"] == "snapshot", reply
        self.joins += 1
        return reply

    async def acts(self, client, address, actions):
        replies = await asyncio.gather(*(client.act(address, action) for action in actions))
        for reply in replies:
            if reply["type"] == "ack":
                if address.startswith("doc/"):
                    self.doc_accepted += 1
                else:
                    self.counter_accepted += 1
            else:
                assert reply["type"] == "error", reply
                self.doc_refused += 1
                self.errors[reply["code"]] += 1
                if reply["code"] == "invalid_action":
                    self.mutate_refusals += 1
        return replies

    async def barrier(self, client, address):
        version = await barrier(client, address)
        self.doc_accepted += 1
        return version

    def resyncs(self):
        return sum(copy.resyncs for client in self.clients for copy in client.copies.values())

    def patch_frames(self):
        return sum(copy.patches for client in self.clients for copy in client.copies.values())

    def updates(self):
        return sum(copy.versions for client in self.clients for copy in client.copies.values())

    def pulses(self):
        return sum(len(client.pulses) for client in self.clients)


async def flood_until_shed(daemon, tally, flooder, window=8):
    """Sets ~8 KB values on FLOOD, FLOOD_ROUND actions at a time, until the daemon counts a
    shed (the slow reader's kernel buffers are full and its outbox passed the limit)."""
    in_flight = asyncio.Semaphore(window)
    k = 0
    for _ in range(FLOOD_ROUNDS):
        futures = []
        for _ in range(FLOOD_ROUND):
            await in_flight.acquire()
            future = flooder.act(FLOOD, {"type": "set", "path": f"/f{k % FLOOD_PATHS}", "value": f"{k}:{PAD}"})
            future.add_done_callback(lambda _: in_flight.release())
            futures.append(future)
            k += 1
        replies = await asyncio.gather(*futures)
        assert all(reply["type"] == "ack" for reply in replies), [r for r in replies if r["type"] != "ack"][:3]
        tally.doc_accepted += len(replies)
        if scrape(daemon.port).value("reactorhub_slow_consumer_total", action="dropped") >= 1:
            return k
    raise AssertionError(f"the slow reader was never shed after {k} flood actions")


async def raw_refusals(daemon, tally):
    """A bare connection: bad JSON, an action on a reactor it did not join, an unknown kind."""
    ws = await websockets.connect(daemon.url, subprotocols=["reactorhub.v1"], ping_interval=None)
    tally.connections += 1
    assert json.loads(await ws.recv())["type"] == "hello"
    await ws.send("{")
    await ws.send(json.dumps({"type": "action", "reactor": DOC, "action": "increase", "ref": 1}))
    await ws.send(json.dumps({"type": "join", "reactor": "nope/x", "ref": 2}))
    codes = [json.loads(await asyncio.wait_for(ws.recv(), 20))["code"] for _ in range(3)]
    assert codes == ["bad_json", "not_joined", "unknown_reactor"]
    for code in codes:
        tally.errors[code] += 1
    return ws


async def phase_a(daemon, tally):
    """Known traffic; every client ends up holding everything sent to it."""
    c0, c1, c2 = [await tally.client(daemon, f"c{i}") for i in range(3)]
    for client in (c0, c1, c2):
        await tally.join(client, DOC)
    await tally.join(c1, COUNTER)

    replies = await tally.acts(c0, DOC, [{"type": "set", "path": f"/k{i}", "value": i} for i in range(20)]
                               + [{"type": "emit", "name": "tick", "value": i} for i in range(2)]
                               + [{"type": "remove", "path": f"/missing{i}"} for i in range(3)]
                               + [{"type": "jump"}, {"type": "jump"}])
    assert [r["type"] for r in replies] == ["ack"] * 22 + ["error"] * 5
    assert [r["code"] for r in replies[22:]] == ["invalid_action"] * 3 + ["unknown_action"] * 2
    await tally.acts(c1, COUNTER, ["increase"])
    marked = await tally.barrier(c0, DOC)
    for client in (c1, c2):
        await client.wait_version(DOC, marked)
    for client in (c0, c1, c2):
        await client.wait_until(lambda c=client: len(c.pulses_of(DOC)) == 2, 20, "the two doc events")
    counter = c1.copy(COUNTER)
    await c1.wait_until(lambda: counter.state == {"value": 1, "isLoading": False} and len(c1.pulses_of(COUNTER)) == 1,
                        20, "the counter's increase, its end of loading and its alert")

    # A resume: c2 leaves by closing, misses two changes, comes back with `since`.
    await c2.close()
    await tally.acts(c0, DOC, [{"type": "set", "path": "/while-away", "value": i} for i in range(2)])
    await c2.connect()
    tally.connections += 1
    resumed = await c2.rejoin(DOC)
    assert resumed["type"] == "resumed", resumed
    # A `since` that cannot be served (another epoch) on a joined reactor: a snapshot.
    await tally.join(c1, DOC, since={"epoch": "not-this-one", "version": 0})

    # A slow reader shed while a writer floods FLOOD, then its resync snapshot.
    flooder = await tally.client(daemon, "flooder")
    await tally.join(flooder, FLOOD)
    slow = await tally.client(daemon, "slow", rcvbuf=SLOW_RCVBUF, max_queue=1)
    await tally.join(slow, FLOOD)
    slow.pause()
    await flood_until_shed(daemon, tally, flooder)
    final = await tally.barrier(flooder, FLOOD)
    slow.resume()
    await slow.wait_until(lambda: slow.copy(FLOOD).version >= final, 60, "the slow reader's resync snapshot")
    assert slow.copy(FLOOD).resyncs >= 1

    raw = await raw_refusals(daemon, tally)
    marked = await tally.barrier(c0, DOC)
    for client in (c1, c2):
        await client.wait_version(DOC, marked)
    for client in tally.clients:
        assert client.failures == [], client.failures
    return raw


def assert_family(source, name, expected: dict):
    """Every sample of `name` has exactly the expected value (`source`: a Scrape or a
    {labels: value} from Prometheus)."""
    got = source.family(name) if isinstance(source, Scrape) else source
    assert got == expected, f"{name}: got {got}, expected {expected}"


def prometheus_family(prometheus, name):
    """{labels without job and instance: value} of every series of `name` in Prometheus."""
    family = {}
    for metric, value in prometheus.query(name):
        assert metric.pop("job") == "reactorhub" and metric.pop("instance").startswith("127.0.0.1:")
        assert metric.pop("__name__") == name
        family[tuple(sorted(metric.items()))] = value
    return family


def expected_counters(tally, closed_1000):
    actions = {labels(kind=k, result=r): 0 for k in KINDS for r in ("accepted", "refused", "duplicate")}
    actions[labels(kind="doc", result="accepted")] = tally.doc_accepted
    actions[labels(kind="doc", result="refused")] = tally.doc_refused
    actions[labels(kind="counter", result="accepted")] = tally.counter_accepted
    closed = {labels(code=c): 0 for c in CLOSE_CODES}
    closed[labels(code="1000")] = closed_1000
    return {
        "reactorhub_connections_opened_total": {(): tally.connections},
        "reactorhub_connections_closed_total": closed,
        "reactorhub_actions_total": actions,
        "reactorhub_action_seconds_count": {(): tally.doc_accepted + tally.counter_accepted + tally.mutate_refusals},
        "reactorhub_snapshots_total": {labels(reason="join"): tally.joins, labels(reason="resync"): tally.resyncs(),
                                       labels(reason="reset"): 0, labels(reason="other"): 0},
        "reactorhub_resumes_total": {labels(result="resumed"): 1, labels(result="snapshot"): 1, labels(result="other"): 0},
        "reactorhub_errors_total": {labels(code=c): n for c, n in tally.errors.items()},
        "reactorhub_patch_frames_total": {(): tally.patch_frames()},
        "reactorhub_updates_total": {(): tally.updates()},
        "reactorhub_pulses_total": {(): 7},  # 2 doc events × 3 subscribers, 1 counter alert
        "reactorhub_origin_rejected_total": {(): 0},
    }


def assert_the_exact_counts(prometheus, direct: Scrape, tally, closed_1000):
    expected = expected_counters(tally, closed_1000)
    assert tally.pulses() == 7
    for name, values in expected.items():
        assert_family(direct, name, values)
        assert_family(prometheus_family(prometheus, name), name, values)
    # The named series of the issue, queried one by one as an operator would.
    assert prometheus.value('reactorhub_actions_total{kind="doc",result="accepted"}') == tally.doc_accepted
    assert prometheus.value('reactorhub_actions_total{kind="doc",result="refused"}') == tally.doc_refused == 5
    assert prometheus.value('reactorhub_snapshots_total{reason="join"}') == tally.joins == 7
    assert prometheus.value('reactorhub_snapshots_total{reason="resync"}') == tally.resyncs() >= 1
    assert prometheus.value('reactorhub_errors_total{code="invalid_action"}') == 3
    assert prometheus.value('reactorhub_errors_total{code="unknown_action"}') == 2
    dropped = prometheus.value('reactorhub_slow_consumer_total{action="dropped"}')
    assert dropped >= 1 and dropped == direct.value("reactorhub_slow_consumer_total", action="dropped")
    assert prometheus.value('reactorhub_slow_consumer_total{action="closed"}') == 0
    # The histogram: cumulative buckets, +Inf equal to the count.
    buckets = sorted(((float(dict(l)["le"]), v) for l, v in direct.family("reactorhub_action_seconds_bucket").items()))
    assert [v for _, v in buckets] == sorted(v for _, v in buckets) and buckets[-1][0] == float("inf")
    assert buckets[-1][1] == direct.value("reactorhub_action_seconds_count") and direct.value("reactorhub_action_seconds_sum") > 0
    assert prometheus.value("reactorhub_action_seconds_count") == direct.value("reactorhub_action_seconds_count")


def assert_prometheus_holds_the_scrape(prometheus, direct: Scrape, skip=("process_", "reactorhub_service_thread_sockets")):
    """Every sample of the daemon's own exposition is in Prometheus with the same value (but
    the process's and the sockets per service thread, which count the scrapes themselves)."""
    for name in sorted(direct.names()):
        if name.startswith(skip):
            continue
        assert prometheus_family(prometheus, name) == direct.family(name), name


def test_prometheus_sees_the_exact_counts_of_known_traffic(daemon_factory, prometheus_factory):
    daemon = daemon_factory(traffic_config())
    prometheus = prometheus_factory(daemon, rules=[RULES])
    prometheus.wait_scrape_after(time.time())  # a sample before the traffic, for increase()

    async def run():
        tally = Tally()
        raw = await phase_a(daemon, tally)

        # Phase A: everything delivered, every connection but c2's first still open.
        settled = time.time()
        direct = scrape(daemon.port)
        prometheus.wait_scrape_after(settled)
        assert_the_exact_counts(prometheus, direct, tally, closed_1000=1)
        assert_family(direct, "reactorhub_connections", {(): 6})
        assert_family(direct, "reactorhub_instances", {labels(kind="counter"): 1, labels(kind="weather"): 0,
                                                       labels(kind="todo"): 0, labels(kind="doc"): 2})
        assert_family(direct, "reactorhub_subscriptions", {labels(kind="counter"): 1, labels(kind="weather"): 0,
                                                           labels(kind="todo"): 0, labels(kind="doc"): 5})
        assert_family(direct, "reactorhub_outbound_queued_bytes", {(): 0})
        assert_family(direct, "reactorhub_persistence_pending_changes", {(): 0})
        assert_family(direct, "reactorhub_ready", {(): 1})
        version = tally.clients[0].hello["server"].split("/", 1)[1]
        assert_family(direct, "reactorhub_build_info", {labels(version=version): 1})
        assert_prometheus_holds_the_scrape(prometheus, direct)
        # promtool lints what Prometheus just ingested: names, types, HELP, suffixes.
        check = promtool("check", "metrics", stdin=direct.text)
        assert check.returncode == 0 and check.stdout == "" and check.stderr == "", check

        # Phase B: every connection closed normally.
        for client in tally.clients:
            await client.close()
        await raw.close()
        wait_until(lambda: scrape(daemon.port).value("reactorhub_connections") == 0, 30, "every session closed")
        closed = time.time()
        direct = scrape(daemon.port)
        prometheus.wait_scrape_after(closed)
        assert_the_exact_counts(prometheus, direct, tally, closed_1000=tally.connections)
        assert prometheus.value("reactorhub_connections") == 0
        assert prometheus.value('sum(reactorhub_subscriptions)') == 0
        assert_prometheus_holds_the_scrape(prometheus, direct)
        write_report("metrics_prometheus", {
            "connections": tally.connections, "joins": tally.joins, "docAccepted": tally.doc_accepted,
            "docRefused": tally.doc_refused, "resyncs": tally.resyncs(), "patchFrames": tally.patch_frames(),
            "updates": tally.updates(), "pulses": tally.pulses(),
            "dropped": direct.value("reactorhub_slow_consumer_total", action="dropped"),
        })

    asyncio.run(run())

    # The alert rules are loaded and evaluate without error against the live series.
    groups = prometheus.api("rules")["groups"]
    assert [g["name"] for g in groups] == ["reactorhub"]
    assert sorted(r["name"] for r in groups[0]["rules"]) == [
        "ReactorHubNotReady", "ReactorHubPersistenceLag", "ReactorHubSlowConsumers"]

    def evaluated():
        rules = {r["name"]: r for r in prometheus.api("rules")["groups"][0]["rules"]}
        healthy = all(r["health"] == "ok" and not r.get("lastError") for r in rules.values())
        return rules if healthy else None

    rules = wait_until(evaluated, 30, "every rule evaluated without error")
    assert rules["ReactorHubNotReady"]["state"] == "inactive" and rules["ReactorHubPersistenceLag"]["state"] == "inactive"
    assert prometheus.query('sum by (instance) (increase(reactorhub_slow_consumer_total{action="dropped"}[10m])) > 0')


def test_promtool_checks_the_rules_and_their_unit_tests_pass():
    check = promtool("check", "rules", str(RULES))
    assert check.returncode == 0 and "SUCCESS: 3 rules found" in check.stdout, check
    unit = promtool("test", "rules", str(ROOT / "Tests" / "e2e" / "prometheus" / "reactorhub-rules.test.yml"))
    assert unit.returncode == 0 and "SUCCESS" in unit.stdout, unit


def test_an_idle_daemon_exposes_every_family_with_zeros_and_promtool_accepts_it(daemon):
    text = http(daemon.port, "/metrics").text
    check = promtool("check", "metrics", stdin=text)
    assert check.returncode == 0 and check.stdout == "" and check.stderr == "", check
    direct = Scrape(text)
    assert direct.types == {
        "reactorhub_connections": "gauge", "reactorhub_connections_opened_total": "counter",
        "reactorhub_connections_closed_total": "counter", "reactorhub_instances": "gauge",
        "reactorhub_subscriptions": "gauge", "reactorhub_actions_total": "counter",
        "reactorhub_action_seconds": "histogram", "reactorhub_patch_frames_total": "counter",
        "reactorhub_updates_total": "counter", "reactorhub_pulses_total": "counter",
        "reactorhub_snapshots_total": "counter", "reactorhub_resumes_total": "counter",
        "reactorhub_outbound_queued_bytes": "gauge", "reactorhub_slow_consumer_total": "counter",
        "reactorhub_errors_total": "counter", "reactorhub_persistence_pending_changes": "gauge",
        "reactorhub_ready": "gauge", "reactorhub_origin_rejected_total": "counter",
        "reactorhub_service_thread_sockets": "gauge",
        "process_resident_memory_bytes": "gauge", "process_cpu_seconds_total": "counter",
        "process_open_fds": "gauge", "process_max_fds": "gauge", "process_start_time_seconds": "gauge",
        "reactorhub_build_info": "gauge",
    }
    for name, value in expected_counters(Tally(), closed_1000=0).items():
        if name in ("reactorhub_pulses_total", "reactorhub_resumes_total"):
            value = {key: 0 for key in value}
        assert_family(direct, name, value)
    assert len(direct.family("reactorhub_action_seconds_bucket")) == 17  # 16 bounds and +Inf


def test_process_metrics_describe_the_daemon_process(daemon_factory):
    before = time.time()
    daemon = daemon_factory(base_config(reactors={"counter": {"delayMs": 2500}}))
    after = time.time()

    async def wait_for_an_effect():
        # The first scrape comes at least 2.5 s after the start (an event, not a sleep): a
        # start time taken at the first scrape would show.
        client = SyncClient(daemon.url, "c")
        await client.connect()
        await client.join("counter/clock")
        assert (await client.act("counter/clock", "increase"))["type"] == "ack"
        await client.wait_until(lambda: client.copy("counter/clock").state["value"] == 1, 30, "the delayed increase")
        await client.close()

    asyncio.run(wait_for_an_effect())
    assert time.time() - after >= 2.5
    direct = scrape(daemon.port)
    pid = daemon.process.pid
    # CLOCK_BOOTTIME and 10 ms ticks: the start is exact to a few ticks.
    assert before - 0.05 <= direct.value("process_start_time_seconds") <= after + 0.05
    with open(f"/proc/{pid}/limits") as limits_file:
        soft = next(line.split()[3] for line in limits_file if line.startswith("Max open files"))
    assert direct.value("process_max_fds") == float(soft)
    open_fds = len(os.listdir(f"/proc/{pid}/fd"))
    assert abs(direct.value("process_open_fds") - open_fds) <= 3  # the scrape's socket, the listing's folder
    rss = daemon.rss_bytes()
    assert 0.5 * rss <= direct.value("process_resident_memory_bytes") <= 1.5 * rss
    with open(f"/proc/{pid}/stat") as stat_file:
        fields = stat_file.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    assert abs(direct.value("process_cpu_seconds_total") - cpu) <= 0.1


def test_readyz_answers_ready_then_shutting_down_while_a_drain_waits_for_an_effect(daemon_factory):
    daemon = daemon_factory(base_config(reactors={"counter": {"delayMs": 4000}}, shutdownGraceMs=30000))
    response = http(daemon.port, "/readyz")
    assert (response.status, response.text, response.headers["content-type"]) == (200, "ready\n", "text/plain; charset=utf-8")
    assert http(daemon.port, "/healthz").status == 200

    async def run():
        client = SyncClient(daemon.url, "c")
        await client.connect()
        await client.join("counter/drain")
        ack = await client.act("counter/drain", "increase")
        assert ack["type"] == "ack"
        copy = client.copy("counter/drain")
        await client.wait_until(lambda: copy.state["isLoading"] is True, 20, "the effect running")
        daemon.process.send_signal(signal.SIGTERM)
        loop = asyncio.get_running_loop()
        draining = await loop.run_in_executor(None, lambda: wait_until(
            lambda: (lambda r: r if r.status == 503 else None)(http(daemon.port, "/readyz")), 20, "/readyz 503"))
        assert draining.text == "shutting down\n"
        seen_during_drain = (copy.state["value"], copy.state["isLoading"])
        gauges = await loop.run_in_executor(None, lambda: scrape(daemon.port))
        assert gauges.value("reactorhub_ready") == 0
        # The drain lets the acked action's effect finish, then closes with 1001.
        await client.wait_until(lambda: copy.state == {"value": 1, "isLoading": False}, 30, "the effect finished")
        await client.wait_until(lambda: client.close_codes, 30, "the close")
        return seen_during_drain, client.close_codes

    seen_during_drain, close_codes = asyncio.run(run())
    assert seen_during_drain == (0, True), "/readyz said 503 while the effect was still running"
    assert close_codes == [1001]
    assert daemon.process.wait(30) == 0


def test_metrics_disabled_hides_the_endpoint_and_keeps_readyz(daemon_factory):
    daemon = daemon_factory(base_config(metrics={"enabled": False}))
    response = http(daemon.port, "/metrics")
    assert response.status == 404 and "reactorhub_" not in response.text
    assert (http(daemon.port, "/readyz").status, http(daemon.port, "/readyz").text) == (200, "ready\n")
