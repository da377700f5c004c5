"""Finding 2 of "Bounded under attack": no backpressure on the way in.

Before: 300 connections each within the default 200 actions/s grew the daemon by ~20 MB/s,
other clients' pings took 0.2-1 s, SIGTERM was then ignored for over 30 s; with the rate
limit raised, 10 writers grew it to 3.6 GB and it was still busy minutes after every
client had gone. Now the sockets of the senders are not read while an instance has more
than `limits.maxPendingActions` waiting (or all more than `limits.maxPendingActionsTotal`),
so under both floods: resident memory stays under a bound, another client's pings are all
answered in order, CPU returns near idle after the flooders leave, and SIGTERM ends the
process with status 0, the server closing every client with 1001 (a flooder whose unread
data the server discards at the close may see a TCP reset instead).

Each flood runs in a forked process on raw sockets (load_tools.Flood); this process pings
and samples /proc. What is measured goes to sync-report.json (`attacks_flood_*`).
"""
import re
import signal
import time

from conftest import base_config, supported
from load_tools import Flood, FloodSpec, RawClient, cpu_seconds, percentile, rss_bytes
from sync_harness import mib, write_report

# Measured on the 2-core test machine (debug build, shared with other builds): the crowd
# peaked at 45-64 MiB, the writers at 54-57 MiB. Without backpressure the writers' daemon
# was at 188 MiB after 13 s and growing (with the CPU this loaded machine gave it; 3.6 GB
# on the issue's). The flood is stopped early past the hard cap so that a daemon without
# the fix does not take the machine's memory.
RSS_BOUND = 128 * 1024 * 1024
RSS_HARD_CAP = 1024 * 1024 * 1024
FLOOD_SECONDS = 10
# "near idle": less than a fifth of one core over a 2-second window, within 45 s.
QUIET_SHARE = 0.2
QUIET_WITHIN = 45
SHUTDOWN_GRACE_MS = 2000
# CONFIG.md: within shutdownGraceMs (+1 s); the transport's close of clients whose
# sockets are not being read may take another grace. Slack for a loaded machine.
SHUTDOWN_BOUND = 2 * SHUTDOWN_GRACE_MS / 1000 + 1 + 10


def config():
    return supported(base_config(
        limits={"actionsPerSecond": 1_000_000, "actionBurst": 1_000_000},
        shutdownGraceMs=SHUTDOWN_GRACE_MS,
    ))


def crowd(port):
    """300 connections, each at 200 actions/s (within the default rate), on 4 docs; from
    three source addresses (limits.maxConnectionsPerAddress is 256)."""
    return FloodSpec(port, 300, [f"doc/crowd{i}" for i in range(4)], rate=200,
                     sources=["127.0.0.21", "127.0.0.22", "127.0.0.23"], name="crowd")


def writers(port):
    """10 connections as fast as their sockets take it, 2 KB values, on 2 docs."""
    return FloodSpec(port, 10, ["doc/writers0", "doc/writers1"], rate=None, pad=2000,
                     sources=["127.0.0.24"], name="writer")


class Pinger:
    """One well-behaved client pinging, one ping at a time; every pong must carry the ref
    of the ping it answers, in order."""

    def __init__(self, port):
        self.client = RawClient(port, name="pinger").open()
        self.ref = 0
        self.rtts = []
        self.problems = []

    def ping(self, timeout=60):
        self.ref += 1
        started = time.monotonic()
        try:
            reply = self.client.request({"type": "ping", "ref": self.ref}, timeout=timeout)
        except (TimeoutError, ConnectionError) as error:
            self.problems.append(f"ping {self.ref}: {error}")
            return False
        self.rtts.append(time.monotonic() - started)
        if reply != {"type": "pong", "ref": self.ref}:
            self.problems.append(f"ping {self.ref} answered by {reply}")
        return True

    def idle_until_cpu_quiet(self, pid, below, window, timeout):
        """Samples the daemon's CPU share over consecutive windows until one is below
        `below`, reading meanwhile (the daemon's keepalive pings are answered)."""
        shares = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            start_cpu, start = cpu_seconds(pid), time.monotonic()
            while time.monotonic() - start < window:
                self.client.pump()
                time.sleep(0.05)
            shares.append((cpu_seconds(pid) - start_cpu) / (time.monotonic() - start))
            if shares[-1] < below:
                return True, shares
        return False, shares


def run_flood(daemon, spec, seconds, pinger, problems):
    """Floods for `seconds`, pinging and sampling RSS; returns figures. Stops early past
    the hard cap."""
    pid = daemon.process.pid
    base = rss_bytes(pid)
    flood = Flood(spec).start()
    started = time.monotonic()
    cpu_start = cpu_seconds(pid)
    peak = base
    pings_before = len(pinger.rtts)
    capped = False
    while time.monotonic() - started < seconds:
        if not pinger.ping():
            break
        peak = max(peak, rss_bytes(pid))
        if peak > RSS_HARD_CAP:
            capped = True
            break
        time.sleep(0.05)
    elapsed = time.monotonic() - started
    flood.stop_sending()
    peak = max(peak, rss_bytes(pid))
    figures = {
        "connections": spec.connections, "ratePerConnection": spec.rate, "seconds": round(elapsed, 1),
        "rssBaseMiB": mib(base), "rssPeakMiB": mib(peak), "stoppedAtHardCap": capped,
        "daemonCpuShare": round((cpu_seconds(pid) - cpu_start) / elapsed, 2),
        "pings": len(pinger.rtts) - pings_before,
        "pingP50Ms": round(1000 * (percentile(pinger.rtts[pings_before:], 50) or 0), 1),
        "pingP99Ms": round(1000 * (percentile(pinger.rtts[pings_before:], 99) or 0), 1),
        "pingMaxMs": round(1000 * max(pinger.rtts[pings_before:], default=0), 1),
    }
    if peak > RSS_BOUND:
        problems.append(f"{spec.name}: resident memory reached {mib(peak)} MiB (bound {mib(RSS_BOUND)} MiB)")
    return flood, figures


def server_closes_after_sigterm(daemon):
    """The close codes the daemon logged for its connections after SIGTERM."""
    text = daemon.log_path.read_text(errors="replace")
    started = text.rfind("reactorhub started")
    after = text[text.find("shutting down signal=SIGTERM", started):]
    codes = {}
    for code in re.findall(r"connection closed code=(\d+)", after):
        codes[code] = codes.get(code, 0) + 1
    return codes


def flood_then_leave_then_sigterm(daemon_factory, make_spec, name):
    daemon = daemon_factory(config())
    pid = daemon.process.pid
    pinger = Pinger(daemon.port)
    problems = []
    figures = {"rssBoundMiB": mib(RSS_BOUND)}
    for _ in range(5):
        pinger.ping()
    idle_rtts = list(pinger.rtts)
    figures["pingP99IdleMs"] = round(1000 * percentile(idle_rtts, 99), 1)

    # The flood, then the flooders leave: CPU must return near idle.
    flood, figures["flood"] = run_flood(daemon, make_spec(daemon.port), FLOOD_SECONDS, pinger, problems)
    figures["flood"]["client"] = flood.finish("close")
    left_at = time.monotonic()
    quiet, shares = pinger.idle_until_cpu_quiet(pid, QUIET_SHARE, window=2.0, timeout=QUIET_WITHIN)
    figures["cpuAfterLeave"] = {"quiet": quiet, "secondsToQuiet": round(time.monotonic() - left_at, 1),
                                "shares": [round(s, 2) for s in shares]}
    if not quiet:
        problems.append(f"{name}: CPU still at {shares[-3:]} of a core {QUIET_WITHIN} s after the flooders left")
    figures["rssAfterLeaveMiB"] = mib(rss_bytes(pid))
    # The pinger still gets its pongs (in order) once the flood is over.
    for _ in range(5):
        pinger.ping()

    # A second flood, and SIGTERM in the middle of it.
    second, figures["secondFlood"] = run_flood(daemon, make_spec(daemon.port), 3, pinger, problems)
    signalled = time.monotonic()
    daemon.process.send_signal(signal.SIGTERM)
    status = None
    while time.monotonic() - signalled < 60:
        status = daemon.process.poll()
        if status is not None:
            break
        pinger.client.pump()    # keeps reading (and answering keepalive pings) meanwhile
        time.sleep(0.02)
    shutdown_seconds = time.monotonic() - signalled
    codes = second.finish("await-close")
    figures["secondFlood"]["client"] = codes
    pinger_code = pinger.client.wait_closed(10)
    figures["shutdown"] = {"seconds": round(shutdown_seconds, 2), "status": status,
                           "graceMs": SHUTDOWN_GRACE_MS, "closeCodes": codes.get("closeCodes"),
                           "pingerClose": pinger_code}
    if status is None:
        daemon.kill()
        problems.append(f"{name}: SIGTERM did not end the daemon within 60 s")
    elif status != 0:
        problems.append(f"{name}: the daemon exited with {status} after SIGTERM")
    elif shutdown_seconds > SHUTDOWN_BOUND:
        problems.append(f"{name}: shutdown took {shutdown_seconds:.1f} s (bound {SHUTDOWN_BOUND} s)")
    # Every connection open at SIGTERM was closed by the server with 1001 (its log says so
    # for each). A flooder whose data the server never read (its socket was held back)
    # may get a TCP reset instead of the close frame: closing a socket with unread input
    # resets it, and the reset discards what the peer had not read yet.
    closed = server_closes_after_sigterm(daemon)
    figures["shutdown"]["serverCloses"] = closed
    open_at_sigterm = second.spec.connections + 1
    if closed.get("1001", 0) < open_at_sigterm or set(closed) != {"1001"}:
        problems.append(f"{name}: the server closed {closed} after SIGTERM, expected 1001 for {open_at_sigterm}")
    # So each flood client sees the 1001 or a reset, one or the other for every one: how
    # many see a reset depends on which were held back at that moment (2 of the 10
    # writers on a loaded machine), not on the server, whose closes are checked above.
    client_codes = codes.get("closeCodes") or {}
    if set(client_codes) - {"1001", "reset"} or sum(client_codes.values()) != second.spec.connections:
        problems.append(f"{name}: flood clients saw {client_codes}, expected 1001 (or a reset) for all "
                        f"{second.spec.connections}")
    if pinger_code != 1001:
        problems.append(f"{name}: the pinger's close code {pinger_code}, expected 1001")
    problems += pinger.problems
    figures["problems"] = problems
    write_report(f"attacks_flood_{name}", figures)
    print(name, figures)
    assert problems == [], problems


def test_crowd_within_the_rate_limit_is_held_back(daemon_factory):
    flood_then_leave_then_sigterm(daemon_factory, crowd, "crowd")


def test_ten_writers_at_full_speed_are_held_back(daemon_factory):
    flood_then_leave_then_sigterm(daemon_factory, writers, "writers")
