#!/usr/bin/env python3
"""Time from dispatch to the shown change on the demo page, in headless Chromium, through a
proxy that adds 150 ms each way, with the todo list's prediction on and off (`#predict=off`).

    python3 bench/prediction-latency.py [--adds 30] [--latency-ms 150]

For each add: the title is typed and the form submitted in one task (performance.now() just
before), a MutationObserver sees the title appear in the list, and the time is taken at the
next requestAnimationFrame (the frame that shows it). Between adds it waits until nothing is
pending. Prints the median, p90 and max of each mode, and the time to the server's confirmation
(pending back to 0) for context. Uses $REACTORHUB_BINARY (else .build/debug/reactorhub)."""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "browser"))
from delay_proxy import DelayProxy  # noqa: E402
from browser_support import Browser, DESKTOP  # noqa: E402

MEASURE = """
const [title, done] = [arguments[0], arguments[arguments.length - 1]];
const list = document.querySelector('[data-testid="todo-list"]');
const hub = window.reactorhubDemo.client;
const address = 'todo/' + window.reactorhubDemo.room;
let shownMs = null;
const shown = () => [...list.querySelectorAll('[data-testid="todo-title"]')].some((e) => e.textContent === title);
const observer = new MutationObserver(() => {
  if (shownMs !== null || !shown()) return;
  observer.disconnect();
  requestAnimationFrame(() => { shownMs = performance.now() - t0; finish(); });
});
observer.observe(list, { childList: true, subtree: true, characterData: true });
const finish = () => {
  if (shownMs === null || hub.reactor(address).pending !== 0) return;
  done({ shownMs, confirmedMs: performance.now() - t0 });
};
const off = hub.on('state', (at) => { if (at === address) finish(); });
const input = document.querySelector('[data-testid="todo-new"]');
input.value = title;
const t0 = performance.now();
document.querySelector('[data-testid="todo-form"]').requestSubmit();
"""


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adds", type=int, default=30)
    parser.add_argument("--latency-ms", type=int, default=150)
    args = parser.parse_args()
    binary = os.environ.get("REACTORHUB_BINARY", str(ROOT / ".build" / "debug" / "reactorhub"))
    config = pathlib.Path(tempfile.mkdtemp(prefix="rh-prediction-bench-")) / "config.json"
    config.write_text(json.dumps({"logLevel": "warning", "reactors": {"todo": {"maxItems": 10000}}}))
    daemon = subprocess.Popen([binary, "--config", str(config), "--port", "0", "--web-root", str(ROOT / "web")],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    port = int(daemon.stdout.readline().decode().strip().rsplit(":", 1)[1])
    proxy = DelayProxy(port, args.latency_ms / 1000)
    browser = Browser("bench", DESKTOP)
    browser.driver.set_script_timeout(30)
    results = {}
    try:
        for mode, suffix in (("with prediction", ""), ("without prediction", "&predict=off")):
            room = f"bench-{uuid.uuid4().hex[:8]}"
            browser.driver.get("about:blank")
            browser.driver.get(f"{proxy.url}#room={room}{suffix}")
            browser.wait_status("open", timeout=30)
            browser.wait(lambda _: browser.attr("version-todo", "data-version") is not None, "the todo state", 30)
            runs = [browser.driver.execute_async_script(MEASURE, f"item {n}") for n in range(args.adds)]
            results[mode] = runs
    finally:
        browser.quit()
        proxy.close()
        daemon.terminate()
        daemon.wait(10)
    print(f"dispatch to shown change, demo page todo add, Chromium, {args.latency_ms} ms added each way, "
          f"{args.adds} adds per mode ({time.strftime('%Y-%m-%d')})")
    for mode, runs in results.items():
        shown = [r["shownMs"] for r in runs]
        confirmed = [r["confirmedMs"] for r in runs]
        print(f"{mode:>20}: shown median {statistics.median(shown):.1f} ms, p90 {percentile(shown, 0.9):.1f}, "
              f"max {max(shown):.1f}; confirmed median {statistics.median(confirmed):.1f} ms")


if __name__ == "__main__":
    main()
