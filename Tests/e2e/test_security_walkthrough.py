"""Replays the websocat session of docs/security.md, in the style of
test_websocat_walkthrough.py: every `$` line of the fenced block is typed into one bash (in a
copy of the shipped config/ folder, with the built `reactorhub` on PATH), the JSON lines after
`websocat` are typed at its prompt, and every line printed back is checked in order. Only what
differs from run to run is matched by shape: the port (the daemon gets port 0 through
REACTORHUB_PORT and the doc's 8443 is replaced by the one it printed), `session`, `epoch` and
`expires`. `$NAME` in a typed JSON line is the shell variable's value, as a person would paste it.

The test talks to the shell through a pipe: bash reads a pipe one byte at a time, so what
follows the websocat command reaches websocat, as it would in a terminal. The test adds its
own `echo` lines (a marker after each command, the daemon's pid) between the doc's commands."""
import json
import os
import pathlib
import queue
import re
import shutil
import signal
import subprocess
import threading
import time

from conftest import BINARY, OUTPUT, ROOT

CLIENT_TYPES = {"join", "leave", "action", "ping", "auth"}
DONE = "__rh_walkthrough_done__"
PID = "__rh_walkthrough_pid__"


def walkthrough_lines():
    text = (ROOT / "docs" / "security.md").read_text()
    section = text.split("## A websocat session", 1)[1]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1)
    return [line for line in block.splitlines() if line.strip()]


def normalise(line: str) -> str:
    line = re.sub(r'"epoch":"[0-9a-f]{16}"', '"epoch":"<epoch>"', line)
    line = re.sub(r'"session":"c\d+"', '"session":"<session>"', line)
    line = re.sub(r'"expires":\d+', '"expires":<expires>', line)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", line)


class Shell:
    """One bash whose standard input is a pipe, and the lines it (and its children) print."""

    def __init__(self, cwd: pathlib.Path, env: dict, log: pathlib.Path):
        self.log = open(log, "ab")
        self.process = subprocess.Popen(["bash", "--noprofile", "--norc"], cwd=cwd, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for raw in self.process.stdout:
            self.lines.put(raw.decode().rstrip("\n"))

    def type(self, line: str) -> None:
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()

    def read(self, timeout: float = 20) -> str:
        return self.lines.get(timeout=timeout)

    def run(self, command: str, expected_lines: int, extra: str = "") -> list[str]:
        """Types `command` (then the test's marker, and `extra`); returns the lines printed
        before the marker and, for a command that printed later (a background one), until
        `expected_lines` have come."""
        self.type(command)
        if extra:
            self.type(extra)
        self.type(f"echo {DONE}")
        printed, marker = [], False
        deadline = time.monotonic() + 30
        while not marker or len(printed) < expected_lines:
            line = self.read(max(0.1, deadline - time.monotonic()))
            if line == DONE:
                marker = True
            else:
                printed.append(line)
        return printed

    def close(self) -> None:
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def install_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    """The shipped config folder (secure.json and the weather data it names) and web/, as a
    person has them in a checkout; data/ starts empty."""
    folder = tmp_path / "reactorhub"
    (folder / "config").mkdir(parents=True)
    for name in ("secure.json", "weather.json"):
        shutil.copy(ROOT / "config" / name, folder / "config" / name)
    (folder / "web").symlink_to(ROOT / "web")
    return folder


def test_the_security_walkthrough_replays_line_by_line(tmp_path):
    lines = walkthrough_lines()
    assert len(lines) == 31, "the walkthrough changed; update this count deliberately"
    folder = install_copy(tmp_path)
    env = {key: value for key, value in os.environ.items() if not key.startswith("REACTORHUB_")}
    env.update(PATH=f"{BINARY.parent}{os.pathsep}{env['PATH']}", REACTORHUB_PORT="0")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    shell = Shell(folder, env, OUTPUT / "security-walkthrough-shell.log")
    daemon_pid, port = None, None
    variables: dict[str, str] = {}
    in_websocat = False
    checked = 0
    try:
        index = 0
        while index < len(lines):
            line = lines[index]
            # What the line's command prints: the lines that follow, up to the next one typed.
            expected = []
            while index + 1 + len(expected) < len(lines) and not lines[index + 1 + len(expected)].startswith("$ ") \
                    and not (in_websocat or line.startswith("$ websocat")):
                expected.append(lines[index + 1 + len(expected)])
            if line.startswith("$ "):
                command = line[2:]
                if port is not None:
                    command = command.replace("127.0.0.1:8443", f"127.0.0.1:{port}")
                if command.startswith("websocat "):
                    shell.type(command)
                    in_websocat = True
                    index += 1
                    continue
                background = command.endswith("&")
                printed = shell.run(command, len(expected) + background, extra=f"echo {PID}$!" if background else "")
                if background:
                    daemon_pid = int(next(p for p in printed if p.startswith(PID))[len(PID):])
                    printed = [p for p in printed if not p.startswith(PID)]
                assert [normalise(p) for p in printed] == [normalise(e) for e in expected], command
                checked += len(expected)
                if background:
                    port = int(printed[0].rsplit(":", 1)[1])
                assignment = re.match(r"([A-Z_]+)=\$\(", command)
                if assignment:
                    name = assignment.group(1)
                    variables[name] = shell.run(f'printf "%s\\n" "${name}"', 1)[0]
                index += 1 + len(expected)
                continue
            assert in_websocat, f"an output line without its command: {line}"
            message = json.loads(line)
            if message["type"] in CLIENT_TYPES:
                typed = re.sub(r"\$([A-Z_]+)", lambda m: variables[m.group(1)], line)
                shell.type(typed)
            else:
                got = shell.read()
                assert normalise(got) == normalise(line), f"line {index + 1} of the block differs"
                checked += 1
            index += 1
        assert checked == 14
        assert variables["TOKEN"].count(".") == 2 and variables["NARROWER"].count(".") == 2
        try:
            extra = shell.read(timeout=0.5)
        except queue.Empty:
            extra = None
        assert extra is None, f"unexpected extra line: {extra}"
    finally:
        shell.close()  # websocat sees the end of its input and closes; bash ends
        if daemon_pid is not None:
            os.kill(daemon_pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while pathlib.Path(f"/proc/{daemon_pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
    log = (folder / "reactorhub.log").read_text()
    assert "refusing upgrade: token refused" in log and "reason=malformed" in log
    assert "refusing upgrade: origin not allowed" in log


def test_the_shipped_secure_config_needs_the_secret_and_then_the_tls_files(tmp_path):
    folder = install_copy(tmp_path)
    env = {key: value for key, value in os.environ.items() if not key.startswith("REACTORHUB_")}

    def start(extra_env):
        return subprocess.run([str(BINARY), "--config", "config/secure.json", "--port", "0"], cwd=folder,
                              env={**env, **extra_env}, capture_output=True, timeout=30)

    result = start({})
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().splitlines() == [
        "reactorhub: config/secure.json: auth needs auth.hs256Secret (or REACTORHUB_AUTH_SECRET) or auth.publicKeyFile"]
    result = start({"REACTORHUB_AUTH_SECRET": "a-secret-for-the-test-0123456789abcdef"})
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode().splitlines() == [
        f"reactorhub: tls.certFile: file not found: {folder}/config/tls/cert.pem"]
