#!/usr/bin/env python3
"""Socket work spread over service threads (issue 38, BENCHMARKS.md "Several service threads").

Runs the 8-reactor ingest of scripts/bench-reactors.sh (8 reactors, 8 senders, 80
subscribers, acks, window 256) against a fresh daemon per run with `server.threads` set
to each of --threads (alternating, --rounds times), and reads every thread's CPU time from
/proc/PID/task/*/stat before and after the run. Prints per run: actions/s, the daemon's CPU
per action (reactorhub-bench's own figure), the CPU of each service thread
(`reactorhub-lws`, `reactorhub-lws1`, …) and its share of the service threads' sum, and
the CPU of everything else in the daemon.

  scripts/bench-threads.py [--threads 1,2] [--rounds 3] [--duration 4] [--rate R]
                           [--floor] [--daemon PATH] [--bench PATH]

--rate R sends R actions/s in all instead of keeping the window full: CPU per action then
compares thread counts at the same load. --floor runs bench/floor-server.c in the same
rounds with the same thread counts (a context per thread, each on its own port, the
connections spread over them): the socket work of the same messages with no engine, and
what a second thread costs there. Build first: swift build -c release.
"""
import argparse
import json
import os
import pathlib
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def thread_times(pid: int, by_task: bool = False) -> dict[str, float]:
    """CPU seconds (utime + stime) of each thread of `pid`, by name (names repeat: summed),
    or by name/task id."""
    times: dict[str, float] = {}
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except FileNotFoundError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        if by_task:
            name = f"{name}/{task.name}"
        times[name] = times.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / TICKS
    return times


def start_daemon(binary: str, threads: int, log: pathlib.Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "REACTORHUB_SERVER_THREADS": str(threads)}
    process = subprocess.Popen([binary, "--config", str(ROOT / "bench/daemon.json"), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=open(log, "w"), env=env, cwd=ROOT)
    line = process.stdout.readline().decode()
    match = re.search(r"listening on ws?://[0-9.]+:(\d+)|listening on http://[0-9.]+:(\d+)", line)
    if not match:
        process.kill()
        sys.exit(f"bench-threads: the daemon did not start: {line!r}; see {log}")
    port = match.group(1) or match.group(2)
    return process, f"ws://127.0.0.1:{port}/ws"


def start_floor(binary: pathlib.Path, threads: int, log: pathlib.Path) -> tuple[subprocess.Popen, str]:
    """bench/floor-server with a context per thread on consecutive free ports."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port + threads > 65535:
            continue
        process = subprocess.Popen([str(binary), str(port), str(threads)], stdout=subprocess.PIPE, stderr=open(log, "w"))
        line = process.stdout.readline().decode()
        if line.startswith("listening on "):
            ports = line.split()[-1].split(",")
            return process, ",".join(f"ws://127.0.0.1:{p}/" for p in ports)
        process.wait()  # a port after the first was taken: try others
    sys.exit(f"bench-threads: the floor server did not start; see {log}")


def run(args, threads: int, label: str, work: pathlib.Path, floor: pathlib.Path | None = None) -> dict:
    if floor:
        process, url = start_floor(floor, threads, work / "floor.log")
        wire = ["--protocol", "mirror", "--sender-url", url, "--reactor", "doc/fl"]
    else:
        process, url = start_daemon(args.daemon, threads, work / "daemon.log")
        wire = []
    try:
        pace = ["--rate", str(args.rate)] if args.rate else ["--window", "256"]
        command = [args.bench, "fanout", "--url", url, "--server-pid", str(process.pid), "--reactors", "8",
                   "--subscribers", "80", "--senders", "8", "--acks", *pace, "--warmup", "1",
                   "--duration", str(args.duration), "--label", label, "--quiet", *wire]
        before = thread_times(process.pid, by_task=bool(floor))
        output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        after = thread_times(process.pid, by_task=bool(floor))
    finally:
        process.terminate()
        process.wait()
    result = next(json.loads(line[len("RESULT "):]) for line in output.splitlines() if line.startswith("RESULT "))
    used = {name: after.get(name, 0.0) - before.get(name, 0.0) for name in after}
    # The daemon's service threads are named reactorhub-lws…; the floor server's threads
    # all do socket work (they keep the process's name).
    service = {name: seconds for name, seconds in used.items() if name.startswith("reactorhub-lws")}
    if floor:
        service = {f"floor-{index}": seconds for index, (_, seconds) in enumerate(sorted(used.items()))}
    result["serviceThreads"] = dict(sorted(service.items(), key=lambda item: (len(item[0]), item[0])))
    result["otherThreads"] = 0.0 if floor else sum(seconds for name, seconds in used.items() if name not in service)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=4)
    parser.add_argument("--rate", type=int)
    parser.add_argument("--floor", action="store_true")
    parser.add_argument("--daemon", default=str(ROOT / ".build/release/reactorhub"))
    parser.add_argument("--bench", default=str(ROOT / ".build/release/reactorhub-bench"))
    args = parser.parse_args()
    counts = [int(value) for value in args.threads.split(",")]
    work = pathlib.Path(tempfile.mkdtemp(prefix="rh-bench-threads-"))
    floor = None
    if args.floor:
        floor = work / "floor-server"
        subprocess.run([str(ROOT / "scripts/build-floor-server.sh"), str(floor)], check=True)
    servers = ["daemon", "floor"] if floor else ["daemon"]
    print(f"load average before: {open('/proc/loadavg').read().split()[:3]}")
    results: dict[tuple[str, int], list[dict]] = {(server, count): [] for server in servers for count in counts}
    for round_number in range(1, args.rounds + 1):
        order = counts if round_number % 2 else list(reversed(counts))
        for server in servers:
            for count in order:
                result = run(args, count, f"{server}-threads{count}/{round_number}", work,
                             floor if server == "floor" else None)
                results[(server, count)].append(result)
                service = result["serviceThreads"]
                total = sum(service.values()) or 1e-9
                shares = ", ".join(f"{name} {seconds:.2f} s ({seconds / total:.0%})" for name, seconds in service.items())
                print(f"{server}, threads {count}, round {round_number}: {result.get('actionsPerSecond', 0):,.0f} actions/s, "
                      f"CPU {result.get('serverCPUMicrosPerAction', 0):.2f} µs per action, in order: {result.get('ordered')}; "
                      f"service threads: {shares}; other threads {result['otherThreads']:.2f} s")
                time.sleep(0.5)
    print(f"load average after: {open('/proc/loadavg').read().split()[:3]}")
    for server in servers:
        for count in counts:
            runs = results[(server, count)]
            cpu = statistics.median(r.get("serverCPUMicrosPerAction", 0) for r in runs)
            rate = statistics.median(r.get("actionsPerSecond", 0) for r in runs)
            smallest = min(min(r["serviceThreads"].values()) / (sum(r["serviceThreads"].values()) or 1e-9) for r in runs)
            print(f"{server}, threads {count}: median {rate:,.0f} actions/s, median CPU {cpu:.2f} µs per action, "
                  f"smallest service-thread share {smallest:.0%}")
        if len(counts) == 2:
            first, second = (statistics.median(r.get("serverCPUMicrosPerAction", 0) for r in results[(server, c)])
                             for c in counts)
            print(f"{server}: CPU per action, threads {counts[1]} / threads {counts[0]}: {second / first:.2f}×")

if __name__ == "__main__":
    main()
