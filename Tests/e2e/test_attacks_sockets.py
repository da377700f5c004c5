"""Finding 5 of "Bounded under attack": sockets.

Before: other half-open sockets were dropped after 10 s, but an HTTP CONNECT stayed open
for ever (libwebsockets made it a raw socket); 20,000 of them exhausted the descriptors,
and then the daemon spun at 99 % CPU on accept (EMFILE), logged 100 warnings a second,
and no new client nor /healthz got through. Now a CONNECT is closed; the 257th socket
from one address is closed at accept (`limits.maxConnectionsPerAddress`); the sockets the
daemon keeps leave a reserve of descriptors; accept failures are backed off, and
refusals are logged at most once a second with a count.
"""
import re
import select
import time

from conftest import base_config, supported, wait_for
from load_tools import HandshakeError, RawClient, cpu_seconds, http_get, is_closed, open_many, open_socket
from sync_harness import write_report


def test_a_connect_request_is_closed_before_other_half_open_sockets(daemon_factory):
    daemon = daemon_factory(supported(base_config()))
    tunnel = open_socket(daemon.port)
    tunnel.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
    half_open = open_socket(daemon.port)
    half_open.sendall(b"GET /healthz HTTP/1.1\r\n")   # and never the rest
    for sock in (tunnel, half_open):
        sock.setblocking(False)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not is_closed(tunnel):
        select.select([tunnel], [], [], 0.1)
    tunnel_closed = is_closed(tunnel)
    half_open_still_open = not is_closed(half_open)
    # Order, not time: the CONNECT is closed while a half-open request (dropped after the
    # daemon's 10 s timeout) is still open; before, the half-open one went first and the
    # CONNECT stayed.
    assert tunnel_closed, "the CONNECT socket is still open after 60 s"
    assert half_open_still_open, "the half-open socket was closed before the CONNECT"
    tunnel.close()
    half_open.close()


def test_the_257th_socket_from_one_address_is_closed(daemon_factory):
    daemon = daemon_factory(supported(base_config()))
    held, refused, pending = open_many(daemon.port, ["127.0.0.5"], 256, timeout=60)
    assert (len(held), refused, pending) == (256, [], [])
    # the 257th from that address is closed at accept, before any byte is read
    try:
        extra = RawClient(daemon.port, source="127.0.0.5", name="257th").open(timeout=20)
    except (HandshakeError, ConnectionError) as error:
        extra, outcome = None, str(error)
    else:
        outcome = "opened"
    assert extra is None, "the 257th socket from 127.0.0.5 was served"
    # another address is not affected
    other = RawClient(daemon.port, source="127.0.0.6", name="other").open()
    assert other.request({"type": "ping", "ref": 1}) == {"type": "pong", "ref": 1}
    # once one of the 256 leaves, that address may connect again
    held.pop().close()

    def reconnects():
        try:
            RawClient(daemon.port, source="127.0.0.5").open(timeout=5).close()
            return True
        except (HandshakeError, ConnectionError, OSError):
            return False

    assert wait_for(reconnects, timeout=30, interval=0.2)
    write_report("attacks_per_address", {"held": 256, "257th": outcome})
    for client in held:
        client.close()


OPEN_FILES = 512          # the daemon's limit in this test (soft and hard)
RESERVE = 64              # TransportConfiguration.descriptorReserve
HOLDERS = ["127.0.0.10", "127.0.0.11", "127.0.0.12", "127.0.0.13", "127.0.0.14"]
# Measured: ~0.01 of a core while full, with a new connection refused every 50 ms.
# Spinning on EMFILE it takes whatever the machine gives it (0.3-1 core here).
CPU_SHARE_BOUND = 0.25
WINDOW = 4.0


def refusal_lines(text):
    return [line for line in text.splitlines() if "refusing sockets" in line or "accept" in line.lower()]


def test_descriptor_exhaustion_neither_spins_nor_floods_the_log_and_recovers(daemon_factory):
    daemon = daemon_factory(supported(base_config()), open_files=OPEN_FILES)
    pid = daemon.process.pid
    # Fill the descriptors: more connections than the limit, from several addresses.
    held, refused, pending = open_many(daemon.port, HOLDERS, 500, timeout=20)
    figures = {"openFiles": OPEN_FILES, "reserve": RESERVE, "tried": 500, "held": len(held),
               "refused": len(refused), "unanswered": len(pending), "refusedHow": sorted(set(refused))[:4]}

    # While full: a new connection every 50 ms; the daemon's CPU time over the window and
    # what it logs meanwhile.
    log_offset = daemon.log_path.stat().st_size
    cpu_start, started = cpu_seconds(pid), time.monotonic()
    knocks = []
    while time.monotonic() - started < WINDOW:
        try:
            knocks.append(open_socket(daemon.port, source="127.0.0.15", timeout=2))
        except OSError:
            pass
        time.sleep(0.05)
    elapsed = time.monotonic() - started
    share = (cpu_seconds(pid) - cpu_start) / elapsed
    time.sleep(1.2)   # the last counts are logged with the next refusal after a second
    with open(daemon.log_path, "rb") as log:
        log.seek(log_offset)
        window_log = log.read().decode(errors="replace")
    lines = refusal_lines(window_log)
    counted = [int(n) for n in re.findall(r"refusing sockets .*count=(\d+)", window_log)]
    figures.update({"cpuShareWhileFull": round(share, 3), "knocks": len(knocks),
                    "refusalLogLines": len(lines), "refusalCounts": counted[:10], "windowSeconds": round(elapsed, 1)})

    # The holders leave: new clients and /healthz get through again.
    for client in held:
        client.close()
    for sock in pending + knocks:
        sock.close()

    def serves():
        try:
            client = RawClient(daemon.port, name="after").open(timeout=5)
            pong = client.request({"type": "ping", "ref": 1}, timeout=5)
            client.close()
            return pong == {"type": "pong", "ref": 1} and http_get(daemon.port, "/healthz")[0] == 200
        except (HandshakeError, ConnectionError, OSError, TimeoutError):
            return False

    recovered = wait_for(serves, timeout=60, interval=0.5)
    figures["recovered"] = recovered
    write_report("attacks_descriptors", figures)
    print(figures)
    # The daemon kept its reserve: it held at most limit - reserve sockets, refused the
    # rest at once (none left unanswered in its backlog).
    assert len(held) <= OPEN_FILES - RESERVE and len(held) + len(refused) == 500 and not pending, figures
    assert share < CPU_SHARE_BOUND, figures
    # at most about one line a second (per reason), with counts
    assert len(lines) <= 2 * (elapsed + 2), figures
    assert counted and max(counted) > 1, figures
    assert recovered, figures
