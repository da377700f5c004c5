"""ReactorHub as a dependency: the Examples/Poll package over the wire, and
docs/reactors.md followed from an empty folder (its files written from the guide's
snippets, built, tested, run, and talked to with websocat as the guide shows)."""
import json
import os
import pathlib
import queue
import re
import shutil
import subprocess
import tempfile
import threading

import pytest
import websockets.sync.client as ws_client

from conftest import OUTPUT, ROOT

POLL_BINARY = pathlib.Path(os.environ.get("REACTORHUB_POLL_BINARY", ROOT / ".build" / "debug" / "poll-server"))
GUIDE_SCRATCH = ROOT / ".build" / "guide"


def start(binary, config, cwd, name):
    log = open(OUTPUT / f"{name}.log", "ab")
    process = subprocess.Popen([str(binary), "--config", str(config), "--port", "0"], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=log)
    line = process.stdout.readline().decode()
    assert line.startswith("listening on http://"), f"did not start: {line!r}; see {log.name}"
    return process, int(line.strip().rsplit(":", 1)[1])


def stop(process):
    process.terminate()
    assert process.wait(20) == 0


def reply(ws, message):
    ws.send(json.dumps(message))
    while True:
        frame = json.loads(ws.recv(timeout=20))
        if frame.get("ref") == message.get("ref") and frame["type"] in ("ack", "error", "snapshot"):
            return frame


def test_the_poll_example_serves_its_own_kind_beside_the_shipped_ones():
    poll = ROOT / "Examples" / "Poll"
    process, port = start(POLL_BINARY, poll / "config" / "poll.json", poll, "example-poll")
    try:
        with ws_client.connect(f"ws://127.0.0.1:{port}/ws") as ws:
            hello = json.loads(ws.recv(timeout=20))
            assert list(hello["reactors"]) == ["counter", "weather", "todo", "doc", "poll"]
            assert hello["reactors"]["poll"]["actions"] == {
                "open": {"question": "string", "options": "array"}, "vote": {"option": "integer", "voter": "string"},
                "close": {}}
            assert hello["reactors"]["poll"]["pulses"] == ["announcement"]
            snapshot = reply(ws, {"type": "join", "reactor": "poll/lunch", "ref": 1})
            assert snapshot["state"] == {"options": [], "votes": [], "voters": [], "isOpen": False, "isTallying": False}
            seven = ["o%d" % n for n in range(7)]
            refused = reply(ws, {"type": "action", "reactor": "poll/lunch", "ref": 2,
                                 "action": {"type": "open", "question": "Too many?", "options": seven}})
            # reactors.poll.maxOptions is 6 in config/poll.json: the settings reached the kind.
            assert (refused["code"], refused["message"]) == (
                "invalid_action", "a poll has 2 to 6 options (reactors.poll.maxOptions), got 7")
            assert reply(ws, {"type": "action", "reactor": "poll/lunch", "ref": 3,
                              "action": {"type": "open", "question": "Lunch?", "options": ["Tea", "Coffee"]}})["type"] == "ack"
            for ref, voter in [(4, "ann"), (5, "bob")]:
                assert reply(ws, {"type": "action", "reactor": "poll/lunch", "ref": ref,
                                  "action": {"type": "vote", "option": 0, "voter": voter}})["type"] == "ack"
            assert reply(ws, {"type": "action", "reactor": "poll/lunch", "ref": 6, "action": "close"})["type"] == "ack"
            while True:
                frame = json.loads(ws.recv(timeout=20))
                if frame["type"] == "pulse":
                    break
            assert (frame["name"], frame["value"]) == ("announcement", "Lunch?: Tea wins with 2 of 2 votes")
            final = reply(ws, {"type": "join", "reactor": "poll/lunch", "ref": 7})
            assert final["state"]["votes"] == [2, 0] and final["state"]["isOpen"] is False
    finally:
        stop(process)


def test_unknown_settings_of_a_registered_kind_stop_the_start_naming_the_key(tmp_path):
    config = tmp_path / "poll.json"
    config.write_text(json.dumps({
        "webRoot": str(ROOT / "web"), "reactors": {"weather": {"dataFile": str(ROOT / "config" / "weather.json")},
                                                   "poll": {"maxOption": 3}}}))
    result = subprocess.run([str(POLL_BINARY), "--config", str(config), "--port", "0"], capture_output=True, timeout=30)
    assert result.returncode == 2
    assert result.stderr.decode().strip() == (
        "reactorhub: reactors.poll: unknown key 'reactors.poll.maxOption'; keys accepted: maxOptions, tallyMs")


@pytest.mark.parametrize("example", ["Poll", "Chat"])
def test_the_example_page_uses_the_shipped_client_unchanged(example):
    assert (ROOT / "Examples" / example / "web" / "reactorhub.js").read_bytes() == (ROOT / "web" / "reactorhub.js").read_bytes()


def guide_files():
    text = (ROOT / "docs" / "reactors.md").read_text()
    return {path: body for path, body in re.findall(r"```(?:swift|json) (\S+)\n(.*?)```", text, re.S)}


def guide_transcript():
    text = (ROOT / "docs" / "reactors.md").read_text()
    block = re.search(r"```sh\n\$ websocat (\S+)\n(.*?)```", text, re.S)
    return [line for line in block.group(2).splitlines() if line.strip()]


def test_the_guide_from_an_empty_folder_to_a_running_reactor():
    files = guide_files()
    assert sorted(files) == ["Package.swift", "Sources/ClickerKit/ClickerReactor.swift",
                             "Sources/clicker-server/main.swift", "Tests/ClickerKitTests/ClickerTests.swift",
                             "config/clicker.json"]
    folder = pathlib.Path(tempfile.mkdtemp(prefix="rh-guide-"))
    os.symlink(ROOT, folder / "reactorhub")
    package = folder / "clicker"
    for path, body in files.items():
        (package / path).parent.mkdir(parents=True, exist_ok=True)
        (package / path).write_text(body)
    swift = ["swift", "build", "--package-path", str(package), "--scratch-path", str(GUIDE_SCRATCH)]
    built = subprocess.run(swift, capture_output=True, timeout=1800)
    assert built.returncode == 0, built.stdout.decode()[-4000:] + built.stderr.decode()[-4000:]
    tested = subprocess.run(["swift", "test", "--package-path", str(package), "--scratch-path", str(GUIDE_SCRATCH)],
                            capture_output=True, timeout=1800)
    assert tested.returncode == 0, tested.stdout.decode()[-4000:]
    assert "1 test in 1 suite passed" in (tested.stdout + tested.stderr).decode()
    process, port = start(GUIDE_SCRATCH / "debug" / "clicker-server", package / "config" / "clicker.json", package,
                          "guide-clicker")
    websocat = subprocess.Popen(["websocat", "--text", f"ws://127.0.0.1:{port}/ws"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    received: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [received.put(raw.decode().rstrip("\n")) for raw in websocat.stdout],
                     daemon=True).start()
    try:
        hello = json.loads(received.get(timeout=20))
        assert hello["reactors"]["clicker"] == {"actions": {"click": {"by": "integer"}, "reset": {}},
                                                "pulses": ["milestone"]}
        for line in guide_transcript():
            if json.loads(line)["type"] in ("join", "action"):
                websocat.stdin.write((line + "\n").encode())
                websocat.stdin.flush()
                continue
            got = received.get(timeout=20)
            assert re.sub(r'"epoch":"[0-9a-f]{16}"', '"epoch":"…"', got) == line
    finally:
        websocat.kill()
        stop(process)
        shutil.rmtree(folder, ignore_errors=True)
