#!/usr/bin/env python3
"""Runs a test command with a time limit, copying its output to the terminal and a log.

    scripts/watched.py --limit SECONDS --log FILE -- COMMAND...

A test run that hangs would otherwise hold CI until its own limit and say nothing of
why. Past --limit this prints the tests that started and never finished (Swift
Testing's "◇ Test … started" lines without their "✔"/"✘" line; XCTest's "started"
lines without "passed"/"failed"), the threads of every process the command started
(gdb, when installed), and stops them all. The command runs in a session of its own, so
what it leaves running there after it exits (a helper process a failed test did not
stop) is named and stopped too, instead of holding the output pipe open. Exits with the
command's status, 124 past the limit, or 1 when the command left processes behind.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

STARTED = [
    re.compile(r"◇ Test (\S+?\(.*?\)) started"),
    re.compile(r"Test Case '(.+?)' started"),
]
ENDED = [
    re.compile(r"[✔✘━] Test (\S+?\(.*?\))(?: with \d+ test cases?)? (?:passed|failed)"),
    re.compile(r"Test Case '(.+?)' (?:passed|failed|skipped)"),
]


def session_processes(sid):
    """(pid, command line) of every live process in the session (swift test starts the
    test binary in a process group of its own, the session holds them all)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            if int(fields[3]) != sid or fields[0] == "Z":
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace").strip()
            found.append((int(entry), command))
        except (OSError, IndexError, ValueError):
            continue
    return found


def stop(sid):
    for pid, _ in session_processes(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, required=True, help="seconds before the run is stopped")
    parser.add_argument("--log", required=True, help="file that receives a copy of the output")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    arguments = parser.parse_args()
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    if not command:
        parser.error("no command")

    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    running = {}

    def copy():
        with open(arguments.log, "wb") as log:
            for raw in process.stdout:
                sys.stdout.buffer.write(raw)
                sys.stdout.buffer.flush()
                log.write(raw)
                line = raw.decode(errors="replace")
                for pattern in STARTED:
                    if match := pattern.search(line):
                        running[match.group(1)] = time.monotonic()
                for pattern in ENDED:
                    if match := pattern.search(line):
                        running.pop(match.group(1), None)

    reader = threading.Thread(target=copy, daemon=True)
    reader.start()
    status = None
    try:
        status = process.wait(timeout=arguments.limit)
    except subprocess.TimeoutExpired:
        pass
    if status is None:
        now = time.monotonic()
        print(f"\nwatched.py: {' '.join(command)} still running after {arguments.limit} s; stopping it.", flush=True)
        print("Tests started and not finished:", flush=True)
        for name, since in sorted(running.items(), key=lambda item: item[1]):
            print(f"  {name} (for {now - since:.0f} s)", flush=True)
        for pid, line in session_processes(process.pid):
            print(f"\nprocess {pid}: {line[:200]}", flush=True)
            if shutil.which("gdb"):
                stacks = subprocess.run(
                    ["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt 25"],
                    capture_output=True, text=True, timeout=120,
                )
                print("\n".join(l for l in stacks.stdout.splitlines() if l.startswith(("#", "Thread"))), flush=True)
        stop(process.pid)
        process.wait()
        reader.join(timeout=10)
        return 124
    leftovers = session_processes(process.pid)
    if leftovers:
        print("\nwatched.py: the command left these running (stopped now):", flush=True)
        for pid, line in leftovers:
            print(f"  {pid}: {line[:200]}", flush=True)
        stop(process.pid)
    reader.join(timeout=10)
    if status == 0 and leftovers:
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
