"""Replays the websocat session of docs/protocol.md through a real websocat process and
checks every line the server prints, in order, byte for byte (only `session` and `epoch`,
which differ from run to run, are matched by shape)."""
import json
import pathlib
import queue
import re
import subprocess
import threading

from conftest import ROOT

CLIENT_TYPES = {"join", "leave", "action", "ping"}


def walkthrough_lines():
    text = (ROOT / "docs" / "protocol.md").read_text()
    section = text.split("## A websocat session", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def normalise(line: str) -> str:
    line = re.sub(r'"epoch":"[0-9a-f]{16}"', '"epoch":"<epoch>"', line)
    return re.sub(r'"session":"c\d+"', '"session":"<session>"', line)


def test_walkthrough_replays_line_by_line(daemon):
    lines = walkthrough_lines()
    assert len(lines) == 15, "the walkthrough changed; update this count deliberately"
    websocat = subprocess.Popen(
        ["websocat", "--text", daemon.url],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    received: queue.Queue = queue.Queue()

    def pump():
        for raw in websocat.stdout:
            received.put(raw.decode().rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    try:
        checked = 0
        for line in lines:
            kind = json.loads(line)["type"]
            if kind in CLIENT_TYPES:
                websocat.stdin.write((line + "\n").encode())
                websocat.stdin.flush()
                continue
            got = received.get(timeout=5)
            assert normalise(got) == normalise(line), f"line {checked + 1} differs"
            checked += 1
        assert checked == 10
        try:
            extra = received.get(timeout=0.5)
        except queue.Empty:
            extra = None
        assert extra is None, f"unexpected extra line: {extra}"
    finally:
        websocat.kill()
        websocat.wait()
