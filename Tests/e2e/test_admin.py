"""The admin API (docs/operations.md "Admin API"): bearer `admin.token` (404 when it is not
set, 401 without the right bearer), `GET /admin/instances` and its pages, one instance with
its state and history, its reset, `GET /admin/connections`, `POST /admin/revoke`. Every
JSON shape is asserted key by key."""
import asyncio
import json
import socket
import time
from urllib.parse import urlparse

import jsonpatch
import jwt
import websockets

from ops_support import base_config, http, scrape, wait_until
from sync_harness import SyncClient, barrier, canonical, fresh_snapshot

TOKEN = "admin-token-for-tests"
SECRET = "a-test-secret-of-at-least-32-bytes!!"
ENDPOINTS = [
    ("GET", "/admin/instances"), ("GET", "/admin/instances?limit=2"), ("GET", "/admin/instances/doc/x"),
    ("POST", "/admin/instances/doc/x/reset"), ("GET", "/admin/connections"), ("POST", "/admin/revoke"),
]
INSTANCE_KEYS = ["kind", "id", "epoch", "version", "subscribers", "queuedBytes"]
PAGE_KEYS = ["instances", "total", "offset", "limit", "next"]
DETAIL_KEYS = ["kind", "id", "resident", "epoch", "version", "subscribers", "state", "history", "setAside"]
RESET_KEYS = ["kind", "id", "epoch", "version", "subscribers"]
CONNECTIONS_KEYS = ["count", "byPath", "byUser", "byAddress", "slowest"]
SLOWEST_KEYS = ["session", "user", "address", "queuedBytes", "joined"]


def admin_config(**overrides):
    return base_config(admin={"token": TOKEN}, **overrides)


def get(daemon, path, token=TOKEN):
    response = http(daemon.port, path, token=token)
    assert response.status == 200, (path, response.status, response.text)
    assert response.headers["content-type"] == "application/json"
    return response.json()


def post(daemon, path, body=None, token=TOKEN):
    return http(daemon.port, path, method="POST", token=token, body=body if body is not None else b"")


def keys(value):
    return list(value)


async def connected(daemon, name, **options):
    client = SyncClient(daemon.url, name, **options)
    await client.connect()
    return client


# --- auth ------------------------------------------------------------------------------

def test_without_admin_token_every_admin_endpoint_answers_404(daemon_factory):
    daemon = daemon_factory(base_config())
    for method, path in ENDPOINTS:
        for token in (None, TOKEN):
            response = http(daemon.port, path, method=method, token=token, body=b"" if method == "POST" else None)
            assert response.status == 404, (method, path, response.status)
            assert response.text == f"not found: {urlparse(path).path} (the admin endpoints need admin.token)\n"


def test_a_missing_or_wrong_bearer_gets_401_and_the_right_one_gets_through(daemon_factory):
    daemon = daemon_factory(admin_config())
    wrong = [None, "", TOKEN[:-1], TOKEN + "x", TOKEN.upper(), f"{TOKEN} {TOKEN}"]
    for method, path in ENDPOINTS:
        for token in wrong:
            response = http(daemon.port, path, method=method, token=token, body=b"" if method == "POST" else None)
            assert (response.status, response.text) == (401, "the admin endpoints need Authorization: Bearer ADMIN_TOKEN\n"), \
                (method, path, token)
    # Another scheme with the right secret is not a bearer.
    for scheme in ("Basic", "Token", ""):
        response = http(daemon.port, "/admin/connections", headers={"Authorization": f"{scheme} {TOKEN}".strip()})
        assert response.status == 401, scheme
    assert get(daemon, "/admin/connections")["count"] == 0
    for method, path in (("GET", "/admin/nothing"), ("GET", "/admin/instances/doc/x/reset"), ("POST", "/admin/connections"),
                         ("DELETE", "/admin/instances/doc/x"), ("GET", "/admin/instances/doc")):
        response = http(daemon.port, path, method=method, token=TOKEN)
        assert response.status == 404 and response.text == f"no admin endpoint {method} {path}; see docs/operations.md\n", \
            (method, path, response.status, response.text)
    # The metrics and the readiness are not behind the admin token.
    assert http(daemon.port, "/metrics").status == 200 and http(daemon.port, "/readyz").status == 200


# --- instances -------------------------------------------------------------------------

ADDRESSES = ["counter/p", "doc/p0", "doc/p1", "doc/p2", "doc/p3", "doc/p4", "todo/p"]  # in address order


def test_instances_are_listed_in_address_order_in_exact_pages(daemon_factory):
    daemon = daemon_factory(admin_config())

    async def run():
        a = await connected(daemon, "a")
        b = await connected(daemon, "b")
        for address in reversed(ADDRESSES):  # joined out of order: the listing sorts
            await a.join(address)
        await b.join("doc/p1")
        await barrier(a, "doc/p1")
        await barrier(a, "doc/p1")
        await b.wait_version("doc/p1", 2)
        epochs = {address: copy.epoch for address, copy in a.copies.items()}

        everything = get(daemon, "/admin/instances")
        assert keys(everything) == PAGE_KEYS
        assert (everything["total"], everything["offset"], everything["limit"], everything["next"]) == (7, 0, 100, None)
        assert [f"{i['kind']}/{i['id']}" for i in everything["instances"]] == ADDRESSES
        for item in everything["instances"]:
            address = f"{item['kind']}/{item['id']}"
            assert keys(item) == INSTANCE_KEYS
            assert item["epoch"] == epochs[address]
            assert item["version"] == (2 if address == "doc/p1" else 0)
            assert item["subscribers"] == (2 if address == "doc/p1" else 1)
            assert item["queuedBytes"] == 0

        pages = []
        offset = 0
        while offset is not None:
            page = get(daemon, f"/admin/instances?limit=3&offset={offset}")
            assert (page["total"], page["offset"], page["limit"]) == (7, offset, 3)
            pages.append([f"{i['kind']}/{i['id']}" for i in page["instances"]])
            offset = page["next"]
        assert pages == [ADDRESSES[0:3], ADDRESSES[3:6], ADDRESSES[6:7]]
        assert get(daemon, "/admin/instances?limit=3&offset=3")["next"] == 6
        assert get(daemon, "/admin/instances?limit=7")["next"] is None
        assert get(daemon, "/admin/instances?limit=6")["next"] == 6
        past = get(daemon, "/admin/instances?offset=7")
        assert (past["instances"], past["total"], past["next"]) == ([], 7, None)
        # Out-of-range and unreadable arguments are clamped or defaulted, never refused.
        assert get(daemon, "/admin/instances?limit=0")["limit"] == 1
        assert get(daemon, "/admin/instances?limit=5000")["limit"] == 1000
        assert get(daemon, "/admin/instances?limit=abc&offset=-4")["limit"] == 100
        assert get(daemon, "/admin/instances?offset=-4")["offset"] == 0
        await a.close()
        await b.close()
        assert a.failures == [] and b.failures == []

    asyncio.run(run())


def test_one_instance_shows_the_state_of_a_fresh_snapshot_and_its_last_20_patches(daemon_factory):
    daemon = daemon_factory(admin_config())

    async def run():
        a = await connected(daemon, "a")
        await a.join("doc/one")
        for i in range(5):
            await a.act("doc/one", {"type": "set", "path": f"/v{i}", "value": i})
        await a.wait_version("doc/one", 5)
        _, at_five, state_at_five = await fresh_snapshot(daemon.url, "doc/one")
        assert at_five == 5
        for i in range(20):
            await a.act("doc/one", {"type": "set", "path": "/list", "value": list(range(i))})
        await a.wait_version("doc/one", 25)
        epoch, version, state = await fresh_snapshot(daemon.url, "doc/one")
        detail = get(daemon, "/admin/instances/doc/one")
        assert keys(detail) == DETAIL_KEYS
        assert (detail["kind"], detail["id"], detail["resident"], detail["epoch"], detail["version"], detail["subscribers"]) == \
            ("doc", "one", True, epoch, 25, 1)
        assert version == 25 and canonical(detail["state"]) == canonical(state) == canonical(a.copy("doc/one").state)
        assert detail["setAside"] == []
        history = detail["history"]
        assert [h["version"] for h in history] == list(range(6, 26))
        assert all(keys(h) == ["version", "base", "patch"] and h["base"] == h["version"] - 1 for h in history)
        # The history is real RFC 6902: version 5's snapshot plus patches 6…25 is the state.
        rebuilt = state_at_five
        for h in history:
            rebuilt = jsonpatch.apply_patch(rebuilt, h["patch"])
        assert canonical(rebuilt) == canonical(state)

        unknown = http(daemon.port, "/admin/instances/doc/never-joined", token=TOKEN)
        assert unknown.status == 404 and unknown.text == "doc/never-joined is neither in memory nor in the state store\n"
        invalid = http(daemon.port, "/admin/instances/Doc!/x", token=TOKEN)
        assert invalid.status == 400 and invalid.text == "expected /admin/instances/KIND/ID with a valid reactor address\n"
        await a.close()
        assert a.failures == []

    asyncio.run(run())


def test_an_instance_not_in_memory_is_read_from_the_state_store(daemon_factory, tmp_path):
    config = admin_config(persistence={"kind": "sqlite", "path": str(tmp_path / "state.sqlite"), "flushMs": 20})
    first = daemon_factory(config, name="admin-store-1")

    async def write():
        a = await connected(first, "a")
        await a.join("doc/kept")
        for i in range(3):
            await a.act("doc/kept", {"type": "set", "path": "/n", "value": i})
        await a.wait_version("doc/kept", 3)
        await a.close()
        return a.copy("doc/kept")

    copy = asyncio.run(write())
    assert first.stop() == 0
    second = daemon_factory(config, name="admin-store-2")
    assert get(second, "/admin/instances")["total"] == 0
    detail = get(second, "/admin/instances/doc/kept")
    assert keys(detail) == DETAIL_KEYS
    assert (detail["resident"], detail["epoch"], detail["version"], detail["subscribers"], detail["state"]) == \
        (False, copy.epoch, 3, 0, {"n": 2})
    assert detail["history"] == [{"version": 1}, {"version": 2}, {"version": 3}]
    assert detail["setAside"] == []


def test_a_reset_gives_subscribers_a_snapshot_of_a_new_epoch_and_versions_restart(daemon_factory):
    daemon = daemon_factory(admin_config())

    async def run():
        a = await connected(daemon, "a")
        b = await connected(daemon, "b")
        for client in (a, b):
            await client.join("doc/r")
        for i in range(4):
            await a.act("doc/r", {"type": "set", "path": f"/x{i}", "value": i})
        await b.wait_version("doc/r", 4)
        old_epoch = a.copy("doc/r").epoch
        joins_before = scrape(daemon.port).value("reactorhub_snapshots_total", reason="join")

        response = post(daemon, "/admin/instances/doc/r/reset")
        assert response.status == 200 and response.headers["content-type"] == "application/json"
        reset = response.json()
        assert keys(reset) == RESET_KEYS
        assert (reset["kind"], reset["id"], reset["version"], reset["subscribers"]) == ("doc", "r", 0, 2)
        assert reset["epoch"] != old_epoch
        for client in (a, b):
            copy = client.copy("doc/r")
            await client.wait_until(lambda: copy.epoch == reset["epoch"], 20, "the reset's snapshot")
            assert (copy.version, copy.state, copy.resyncs) == (0, {}, 1)

        # Versions restart from 0 in the new epoch, and everyone converges.
        ack = await b.act("doc/r", {"type": "set", "path": "/after", "value": True})
        assert ack["type"] == "ack" and ack["version"] == 0
        for client in (a, b):
            await client.wait_version("doc/r", 1)
        epoch, version, state = await fresh_snapshot(daemon.url, "doc/r")
        assert (epoch, version, state) == (reset["epoch"], 1, {"after": True})
        for client in (a, b):
            assert (client.copy("doc/r").epoch, client.copy("doc/r").version, client.copy("doc/r").state) == (epoch, 1, state)
        detail = get(daemon, "/admin/instances/doc/r")
        assert (detail["epoch"], detail["version"], [h["version"] for h in detail["history"]]) == (epoch, 1, [1])

        # A resume from the old epoch cannot be served: a snapshot of the new one.
        c = await connected(daemon, "c")
        rejoined = await c.join("doc/r", since={"epoch": old_epoch, "version": 4})
        assert (rejoined["type"], rejoined["epoch"], rejoined["version"]) == ("snapshot", epoch, 1)

        # The reset's snapshots are counted as resets, not as joins (the fresh snapshot and c's join are).
        metrics = scrape(daemon.port)
        assert metrics.value("reactorhub_snapshots_total", reason="reset") == 2
        assert metrics.value("reactorhub_snapshots_total", reason="join") == joins_before + 2
        for client in (a, b, c):
            await client.close()
            assert client.failures == []

    asyncio.run(run())


def test_reset_of_an_instance_not_in_memory_or_of_an_unknown_kind_is_refused(daemon_factory):
    daemon = daemon_factory(admin_config())
    response = post(daemon, "/admin/instances/doc/cold/reset")
    assert response.status == 404 and response.text.startswith("doc/cold is not in memory")
    response = post(daemon, "/admin/instances/nope/x/reset")
    assert (response.status, response.text) == (404, "no reactor kind 'nope'\n")


# --- connections -----------------------------------------------------------------------

FLOOD = "doc/flood"
# Pulses of 60 KB: the bytes queued grow fast and the state (which the daemon would
# encode per change) stays empty.
PAD = "y" * 60000


def token(subject):
    return jwt.encode({"sub": subject, "rh": {"read": ["*"], "act": ["*"]}, "exp": int(time.time()) + 3600}, SECRET, algorithm="HS256")


async def raw_connection(daemon, source="127.0.0.1", query="", max_size=2**20):
    """A connection from `source` (any 127.x address is this machine), reading its hello."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", daemon.port))
    sock.setblocking(False)
    ws = await websockets.connect(daemon.url + query, sock=sock, subprotocols=["reactorhub.v1"], ping_interval=None,
                                  max_size=max_size)
    hello = json.loads(await asyncio.wait_for(ws.recv(), 20))
    assert hello["type"] == "hello"
    return ws, hello["session"]


class Flooder:
    """A writer of pulses that counts its acks and skips what else arrives unparsed."""

    def __init__(self, ws, session):
        self.ws, self.session = ws, session

    async def join(self, address):
        await self.ws.send(json.dumps({"type": "join", "reactor": address, "ref": "join"}))
        while not (message := await asyncio.wait_for(self.ws.recv(), 20)).startswith('{"type":"snapshot"'):
            pass

    async def act(self, count, first):
        """Sends `count` emits and waits until each is acked (the pulses in between skipped)."""
        for k in range(first, first + count):
            await self.ws.send(json.dumps({"type": "action", "reactor": FLOOD, "ref": k,
                                           "action": {"type": "emit", "name": "flood", "value": f"{k}:{PAD}"}}))
        acked = 0
        while acked < count:
            message = await asyncio.wait_for(self.ws.recv(), 30)
            if message.startswith('{"type":"ack"'):
                acked += 1
            else:
                assert not message.startswith('{"type":"error"'), message

    async def close(self):
        await self.ws.close()


async def flood_until(daemon, flooder, predicate, what, rounds=100, batch=20):
    k = 0
    for _ in range(rounds):
        await flooder.act(batch, k)
        k += batch
        if predicate():
            return
    raise AssertionError(f"never {what} after {k} actions")


def test_connections_are_counted_by_path_user_and_address_and_the_slowest_ten_sorted(daemon_factory):
    daemon = daemon_factory(admin_config(
        auth={"hs256Secret": SECRET, "required": False, "anonymousRights": {"read": ["*"], "act": ["*"]}},
        limits={"actionsPerSecond": 1000000, "actionBurst": 1000000, "outboundQueueBytes": 64 * 1024 * 1024},
        # The stalled readers answer no ping: not dropped for that on a slow machine.
        keepalive={"pingSeconds": 3600, "timeoutSeconds": 7200},
    ))

    def queued(session):
        return next((s["queuedBytes"] for s in get(daemon, "/admin/connections")["slowest"] if s["session"] == session), 0)

    async def run():
        others = []
        for source, query in [("127.0.0.2", ""), ("127.0.0.2", ""), ("127.0.0.3", f"?token={token('alice')}"),
                              ("127.0.0.1", f"?token={token('alice')}"), ("127.0.0.1", f"?token={token('bob')}"),
                              ("127.0.0.1", ""), ("127.0.0.1", ""), ("127.0.0.1", ""), ("127.0.0.1", "")]:
            others.append(await raw_connection(daemon, source, query))
        flooder = Flooder(*await raw_connection(daemon, max_size=None))  # merged frames are large
        await flooder.join(FLOOD)
        # Two readers that stop reading, joined at different times: the first has more waiting.
        slow = []
        for index in range(2):
            reader = await connected(daemon, f"slow{index}", rcvbuf=4096, max_queue=1)
            await reader.join(FLOOD)
            reader.pause()
            slow.append(reader)
            # More than the kernel may still take (tcp_wmem grows a socket's buffer up to 4 MiB):
            # what is queued then stays queued.
            await flood_until(daemon, flooder, lambda: queued(reader.session) > 5 * 1024 * 1024,
                              f"{reader.name} has 5 MiB queued")

        def stable():
            first, second = get(daemon, "/admin/connections"), get(daemon, "/admin/connections")
            return first if first == second else None

        view = wait_until(stable, 30, "the queues to stop changing")
        assert keys(view) == CONNECTIONS_KEYS
        assert view["count"] == 12
        assert view["byPath"] == {"/ws": 12}
        assert view["byUser"] == {"-": 9, "alice": 2, "bob": 1}
        assert list(view["byUser"]) == ["-", "alice", "bob"]
        assert view["byAddress"] == {"127.0.0.1": 9, "127.0.0.2": 2, "127.0.0.3": 1}
        slowest = view["slowest"]
        assert len(slowest) == 10 and all(keys(s) == SLOWEST_KEYS for s in slowest)
        assert [s["queuedBytes"] for s in slowest] == sorted((s["queuedBytes"] for s in slowest), reverse=True)
        assert [s["session"] for s in slowest[:2]] == [slow[0].session, slow[1].session], view
        assert slowest[0]["queuedBytes"] > slowest[1]["queuedBytes"] > 0
        assert all(s["queuedBytes"] == 0 for s in slowest[2:])
        assert all((s["user"], s["address"], s["joined"]) == (None, "127.0.0.1", 1) for s in slowest[:2])
        sessions = {session: (user, address) for (_, session), (user, address) in zip(others, [
            (None, "127.0.0.2"), (None, "127.0.0.2"), ("alice", "127.0.0.3"), ("alice", "127.0.0.1"), ("bob", "127.0.0.1"),
            (None, "127.0.0.1"), (None, "127.0.0.1"), (None, "127.0.0.1"), (None, "127.0.0.1")])}
        sessions[flooder.session] = (None, "127.0.0.1")
        for s in slowest[2:]:
            assert (s["user"], s["address"]) == sessions[s["session"]] and s["joined"] == (1 if s["session"] == flooder.session else 0)
        # The same bytes in the instance listing and in the scrape.
        waiting = slowest[0]["queuedBytes"] + slowest[1]["queuedBytes"]
        flood = next(i for i in get(daemon, "/admin/instances")["instances"] if i["id"] == "flood")
        assert flood["queuedBytes"] == waiting and flood["subscribers"] == 3
        assert scrape(daemon.port).value("reactorhub_outbound_queued_bytes") == waiting

        # Revoking alice closes her two connections (and no other).
        revoked = post(daemon, "/admin/revoke", {"sub": "alice"})
        assert (revoked.status, revoked.json()) == (200, {"closed": 2})
        after = wait_until(lambda: (lambda v: v if v["count"] == 10 else None)(get(daemon, "/admin/connections")), 30,
                           "alice's connections closed")
        assert after["byUser"] == {"-": 9, "bob": 1}
        assert post(daemon, "/admin/revoke", {"sub": "alice"}).json() == {"closed": 0}
        for body in (b"", b"{}", b'{"sub":""}', b'{"sub":3}', b"not json"):
            refused = post(daemon, "/admin/revoke", body)
            assert (refused.status, refused.text) == (400, 'expected a JSON body {"sub":"USER"}\n'), body

        for reader in slow:
            reader.resume()
        for reader in slow + [flooder]:
            await reader.close()
        for ws, _ in others:
            await ws.close()

    asyncio.run(run())


def test_revoke_without_an_auth_section_is_a_conflict(daemon_factory):
    daemon = daemon_factory(admin_config())
    response = post(daemon, "/admin/revoke", {"sub": "alice"})
    assert (response.status, response.text) == (409, "this server has no auth section: there are no tokens to revoke\n")
